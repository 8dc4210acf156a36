"""The rule catalogue: every check the assistant runs on a Job, as data (the reference page docs/reference/rules.md is generated from it).

Each rule has an ID, a severity (errors block submission, warnings need a conscious yes, infos
teach), a title and the seed passage or RLinf behaviour it rests on. A rule's check yields
``(path, message, fix)`` triples for the Job fields it concerns; :func:`evaluate` turns them into
:class:`Finding` objects. Titles, messages and fixes are :class:`Text`, rendered in the reader's
language only when shown (Chinese in ``i18n/zh/rules.yaml``). CFG and PLC findings come from the
importer (``rlinf/``); the secret scanner contributes the SEC rules. One module per family.
"""

from .catalogue import RULES, evaluate
from .context import Hit, Rule, RuleContext, rule

__all__ = ["RULES", "Hit", "Rule", "RuleContext", "evaluate", "rule"]
