"""Running untrusted code: a bubblewrap sandbox with resource limits (`sandbox`), and the
tests of a code task run against a reply's program (`tests`). docs/code.md says exactly what
the sandbox isolates and what it does not."""
