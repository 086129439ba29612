"""A model served by several replicas: are they one deployment? Checked before it runs.

Every replica's fingerprint (`client/fingerprint.py`: model card, engine version, reasoning
parser) is read at the start. Replicas that differ are refused with the list of differences,
unless the model sets `allow_mixed_fleet: true` (or the run `--allow-mixed-fleet`): then the run
goes on and says so. The fingerprints are kept in the run's model card (`models/NAME.json`,
key `replicas`), and the report and `summary.json` give accuracy and cut-off rate per replica
(`results/replicas.py`), so one misdeployed replica among N shows either way.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from thinkeval.client.dispatch import Dispatcher
from thinkeval.client.fingerprint import differences
from thinkeval.errors import ServerError


async def check_fleet(
    dispatcher: Dispatcher, say: Callable[[str], None], allow_mixed: bool = False
) -> dict[str, Any]:
    """The replicas' fingerprints and differences for the model card ({} for one replica).

    Raises `ServerError` naming every difference when the replicas differ and the model does
    not allow a mixed fleet."""
    model = dispatcher.config
    if len(dispatcher.endpoints) < 2:
        return {}
    prints = await dispatcher.fingerprints()
    found = differences(prints)
    if found and not (allow_mixed or model.allow_mixed_fleet):
        raise ServerError(
            f"the {len(prints)} replicas of {model.name} are not one deployment: "
            + "; ".join(found)
            + ". Redeploy the odd ones, drop them from base_url, or set allow_mixed_fleet: "
            "true (--allow-mixed-fleet) to run anyway with the fleet flagged"
        )
    if found:
        say(f"{model.name}: mixed fleet (allow_mixed_fleet): " + "; ".join(found))
    for down in (p for p in prints if p.unreachable):
        say(
            f"{model.name}: replica {down.base_url} not fingerprinted ({down.error}); the run "
            "avoids it while it does not answer"
        )
    return {
        "replicas": [msgspec.to_builtins(p) for p in prints],
        "fleet_differences": found,
    }
