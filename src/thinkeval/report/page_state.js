// thinkeval report, sample browser 1/5: the view state and the address bar.
// Every filter, the sort, the view and the page live in the URL after "#samples?", so a link
// opens the same samples. Models, tasks and verdicts are named, not numbered, in the URL.
var STATE_KEYS = ["model", "task", "subject", "repeat", "fixed", "final", "finish", "diagnosis",
  "code", "scorer", "judge", "retried", "q", "id", "sort", "size", "page", "view", "a", "b", "phase", "disc"];
var DEFAULTS = { sort: "order", size: "20", page: "1", view: "list", phase: "fixed" };
var STATE_PREFIX = "#samples?";

function byId(id) { return document.getElementById(id); }

function control(key) { return byId("f-" + key); }

function emptyState() {
  var state = {};
  STATE_KEYS.forEach(function (key) { state[key] = DEFAULTS[key] || ""; });
  return state;
}

// The state a URL hash describes; null when the hash is not a sample-browser view.
function stateFromHash(hash) {
  if (hash.indexOf(STATE_PREFIX) !== 0) { return null; }
  var params = new URLSearchParams(hash.slice(STATE_PREFIX.length));
  var state = emptyState();
  STATE_KEYS.forEach(function (key) {
    if (params.has(key)) { state[key] = params.get(key); }
  });
  if (state.disc && !params.has("view")) { state.view = "pair"; }
  // A link from before scorers were keyed by name: lenient=lenient-only or strict-only.
  var old = { "lenient-only": "only:lenient", "strict-only": "strict:lenient" };
  if (!params.has("scorer") && old[params.get("lenient")]) {
    state.scorer = old[params.get("lenient")];
  }
  return state;
}

// The keys that only mean something in the side-by-side view.
var PAIR_KEYS = ["a", "b", "phase", "disc"];

function hashFromState(state) {
  var params = new URLSearchParams();
  STATE_KEYS.forEach(function (key) {
    if (state.view !== "pair" && PAIR_KEYS.indexOf(key) !== -1) { return; }
    if (state[key] && state[key] !== (DEFAULTS[key] || "")) { params.set(key, state[key]); }
  });
  var text = params.toString();
  return text ? STATE_PREFIX + text : "";
}

// Keep the view in the address bar; the default view keeps the address as it was opened (a
// bare "#samples" would make the browser jump there).
function showState(state) {
  var hash = hashFromState(state);
  if (hash === location.hash || (!hash && stateFromHash(location.hash) === null)) { return; }
  history.replaceState(null, "", hash || location.pathname + location.search);
}

function readControls() {
  var state = emptyState();
  STATE_KEYS.forEach(function (key) {
    var input = control(key);
    if (input) { state[key] = input.value.trim ? input.value.trim() : input.value; }
  });
  return state;
}

// Put a state into the controls; a value a select does not offer falls back to its first.
function writeControls(state) {
  STATE_KEYS.forEach(function (key) {
    var input = control(key);
    if (!input) { return; }
    input.value = state[key];
    if (input.tagName === "SELECT" && input.value !== state[key]) {
      input.selectedIndex = 0;
    }
  });
}

function addOption(select, value, label) {
  var option = document.createElement("option");
  option.value = value;
  option.textContent = label;
  select.appendChild(option);
}
