"""Phase lengths (seconds) when none are given: rule players answer at once, a model takes
a few seconds a call and six of them share one embedded model, a person reads and types.
(Apart, so that ``maw --help`` can say them without loading the agents.)"""

RULE_DAY, RULE_NIGHT = 30.0, 15.0
LLM_DAY, LLM_NIGHT = 45.0, 20.0
HUMAN_DAY, HUMAN_NIGHT = 120.0, 45.0
# with people at the table, an AI player waits 2 to 6 s before each action (and before its
# first in a phase), and answers news after 1 to 2 s at least: a person can read and reply
HUMAN_PACE = (2.0, 6.0)
# with people at the table, a seat that lets 2 days in a row (phases that await it in the
# open) run out without a move of its own (a person gone for coffee) is played by the
# stand-in until it moves again: an idle wolf would otherwise block every kill of a pack
# that must agree
IDLE_PHASES = 2
# AIWolf agents (maw game --aiwolf): aiwolf-nlp-server gives each request 60 s (and 5 s
# more): a day of four talks each, a night of one request each
AIWOLF_DAY, AIWOLF_NIGHT = 270.0, 70.0
