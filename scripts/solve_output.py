"""What `ggp-player solve` prints, read back: shared by the scripts that run it."""

import re

LINE = re.compile(r"^line \(\d+ plies\): (.*)$", re.M)
MOVE = re.compile(r"\([^()]*\)")


def line_of(stdout):
    """The moves of the line a solve printed, in the game's notation ([] without one)."""
    found = LINE.search(stdout)
    return MOVE.findall(found.group(1)) if found else []
