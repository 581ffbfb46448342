"""Pure rules engines for Liar's Dice, Nine Dice, Doubt and Pin-456.

No I/O and no vision: a game's state is a replay of its log.
"""

from referee.errors import RefereeError, catalogue
from referee.log import GameLog
from referee.replay import ReplayError, replay, replay_json, rules_for

__all__ = ["GameLog", "RefereeError", "ReplayError", "catalogue", "replay", "replay_json", "rules_for"]
