"""Phase lengths (seconds) when none are given: rule players answer at once, a model takes
a few seconds a call and six of them share one embedded model, a person reads and types.
(Apart, so that ``maw --help`` can say them without loading the agents.)"""

RULE_DAY, RULE_NIGHT = 30.0, 15.0
LLM_DAY, LLM_NIGHT = 45.0, 20.0
HUMAN_DAY, HUMAN_NIGHT = 120.0, 45.0
