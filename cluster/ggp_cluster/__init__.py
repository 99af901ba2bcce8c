"""Play a ggp-player tournament on a Dask cluster, one task per game.

The binary stays the unit of work: ``ggp-player tournament --plan`` lists the games
still to play, each task runs ``ggp-player tournament --only-game K`` on a worker, and
the driver appends each record to the results file, which the binary then reads for the
report, ``--resume`` and the SPRT.
"""

from .driver import Tournament, games_at_once, play

__all__ = ["Tournament", "games_at_once", "play"]
