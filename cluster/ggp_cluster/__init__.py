"""Play a ggp-player tournament, or solve a board, on a Dask cluster.

The binary stays the unit of work. A tournament: ``ggp-player tournament --plan`` lists
the games still to play, each task runs ``ggp-player tournament --only-game K`` on a
worker, and the driver appends each record to the results file, which the binary then
reads for the report, ``--resume`` and the SPRT. A solve: the driver keeps a
proof-number tree over the first moves, each task runs ``ggp-player solve --after ...
--nodes B --json`` on one of its leaves, and a journal of the finished jobs is the
checkpoint.
"""

from .driver import Tournament, games_at_once, play
from .pns import Journal, Problem, Tree
from .solve import Jobs, solve

__all__ = ["Journal", "Jobs", "Problem", "Tournament", "Tree", "games_at_once", "play", "solve"]
