"""The ``dpledger`` command line (:mod:`.main`; one module per command group in :mod:`.commands`):
argparse and printing only, over the service layer :mod:`dpledger.verify.service`."""
