"""verify — checking privacy claims. Sub-packages, bottom to top: :mod:`.audit` (generic auditors),
:mod:`.paper` (the seeds' statements), :mod:`.service` (one function per command, returning data),
:mod:`.reports` and :mod:`.cli` (presentation). Imports ``learners`` and ``accountant``."""
