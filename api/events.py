"""``dpledger.events``: the event tree a mechanism records, :mod:`dpledger.accountant.events` under
its public name, so that ``import dpledger.events`` and ``from dpledger.events import Gaussian``
work as ``dpledger.events.Gaussian`` does.

Importing this module puts the accountant's own module in its place (one module object under two
names), so ``isinstance`` checks, ``is`` comparisons of classes and pickles agree whichever name
a caller used.
"""

from __future__ import annotations

import sys

from dpledger.accountant import events as _events

sys.modules[__name__] = _events
