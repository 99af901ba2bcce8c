import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def binary() -> str:
    """The ggp-player under test: $GGP_PLAYER_BIN, else the repository's release build."""
    path = Path(os.environ.get("GGP_PLAYER_BIN") or REPO / "target/release/ggp-player")
    if not path.is_file():
        pytest.fail(f"no ggp-player at {path}: run cargo build --release or set GGP_PLAYER_BIN")
    return str(path.resolve())
