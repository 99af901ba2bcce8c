"""The proof-number tree over the first plies of a job-level solve, without Dask.

Each leaf is settled by a job (`ggp-player solve --after ... --nodes B --json`) that
returns the leaf's exact value or "unknown". The tree proves one question at a time
about the side to move at its root (the attacker): "can it win?", then, if not and a
draw was seen, "can it at least draw?", as the binary's own solvers do. Proof numbers
(pn) count the effort still needed to show the attacker reaches the target, disproof
numbers (dn) the effort to show it does not; an unknown leaf counts as much as the
budget it has already withstood, in units of the first budget.

The journal is the checkpoint: one JSON line per finished job or expansion, appended as
it happens, so a killed driver loses only the jobs that were running. Replaying it
rebuilds the tree.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

INF = float("inf")
VALUES = ("win", "draw", "loss")
FLIP = {"win": "loss", "draw": "draw", "loss": "win"}


class JournalError(Exception):
    """A journal that belongs to another solve, or that cannot be read."""


@dataclass
class Node:
    """A position `path` moves below the root; the attacker moves at even depths."""

    path: tuple[str, ...]
    parent: Node | None = None
    children: list[Node] | None = None
    # The exact value for the attacker, once a job found it.
    value: str | None = None
    # The node budget of the last job that came back unknown (0: none yet).
    budget: int = 0
    # Legal moves, from the node's first job.
    moves: list[str] | None = None
    pn: float = 1.0
    dn: float = 1.0
    running: bool = False

    @property
    def depth(self) -> int:
        return len(self.path)

    @property
    def attacker_to_move(self) -> bool:
        return self.depth % 2 == 0


@dataclass
class Problem:
    """What the journal's first line records: the solve it belongs to."""

    board: str
    variant: str | None
    game: str
    after: list[str]
    plies: int
    first_budget: int

    def header(self) -> dict:
        return {"solve": self.__dict__}


@dataclass
class Tree:
    problem: Problem
    root: Node = field(default_factory=lambda: Node(()))
    target: str = "win"
    # The side to move at the root, as the root's job names it.
    to_move: str | None = None
    # Values seen in jobs (for the attacker): a draw calls for the second question.
    seen_draw: bool = False
    jobs: int = 0
    job_nodes: int = 0
    job_seconds: float = 0.0

    # --- numbers -------------------------------------------------------------------

    def leaf_numbers(self, node: Node) -> tuple[float, float]:
        if node.value is not None:
            met = node.value == "win" or (self.target == "draw" and node.value == "draw")
            return (0.0, INF) if met else (INF, 0.0)
        effort = max(1.0, node.budget / self.problem.first_budget)
        return effort, effort

    def numbers(self, node: Node) -> None:
        """Sets `node`'s numbers from its children, or from its value if a leaf."""
        if node.children is None:
            node.pn, node.dn = self.leaf_numbers(node)
        elif node.attacker_to_move:
            node.pn = min(c.pn for c in node.children)
            node.dn = sum(c.dn for c in node.children)
        else:
            node.pn = sum(c.pn for c in node.children)
            node.dn = min(c.dn for c in node.children)

    def refresh(self, node: Node | None) -> None:
        """Recomputes the numbers of `node` and of its ancestors."""
        while node is not None:
            self.numbers(node)
            node = node.parent

    def refresh_all(self) -> None:
        def walk(node: Node) -> None:
            for child in node.children or ():
                walk(child)
            self.numbers(node)

        walk(self.root)

    @staticmethod
    def settled(node: Node) -> bool:
        return node.pn == 0 or node.dn == 0

    def answer(self) -> str | None:
        """The root's value for the attacker once known, else None; moves on to the
        second question when the first is disproved and a draw was seen."""
        if self.root.pn == 0:
            return self.target
        if self.root.dn == 0:
            if self.target == "win" and self.seen_draw:
                self.target = "draw"
                self.refresh_all()
                return self.answer()
            return "loss"
        return None

    # --- choosing work -------------------------------------------------------------

    def select(self, node: Node | None = None) -> Node | None:
        """The most-proving leaf not already running: at the attacker's nodes the child
        with the least pn, at the defender's the child with the least dn, passing over
        children whose every leaf is running."""
        node = node or self.root
        if self.settled(node):
            return None
        if node.children is None:
            return None if node.running else node
        key = (lambda c: c.pn) if node.attacker_to_move else (lambda c: c.dn)
        for child in sorted(node.children, key=key):
            leaf = self.select(child)
            if leaf is not None:
                return leaf
        return None

    def next_budget(self, node: Node) -> int | None:
        """The budget of the leaf's next job, or None if it is to be expanded instead:
        a leaf within the tree's plies is split into its children after one unknown
        job; deeper, its job is rerun with twice the budget."""
        if node.budget == 0:
            return self.problem.first_budget
        if node.depth < self.problem.plies and node.moves:
            return None
        return 2 * node.budget

    def expand(self, node: Node) -> None:
        node.children = [Node(node.path + (m,), parent=node) for m in node.moves or ()]
        for child in node.children:
            child.pn, child.dn = self.leaf_numbers(child)
        self.refresh(node)

    def under_settled(self, node: Node) -> bool:
        """Whether the node's value no longer matters to the question under way."""
        while node is not None:
            if self.settled(node):
                return True
            node = node.parent
        return False

    # --- results -------------------------------------------------------------------

    def find(self, path: list[str] | tuple[str, ...]) -> Node:
        node = self.root
        for move in path:
            if node.children is None:
                raise JournalError(f"the journal names {list(path)} before its parent was split")
            node = next((c for c in node.children if c.path[-1] == move), None)
            if node is None:
                raise JournalError(f"the journal names {list(path)}, which is not in the tree")
        return node

    def record(self, node: Node, report: dict) -> None:
        """Takes a job's report (the binary's JSON) for `node`."""
        self.jobs += 1
        self.job_nodes += report["nodes"]
        self.job_seconds += report["seconds"]
        if node.moves is None:
            node.moves = report["moves"]
        if not node.path:
            self.to_move = report["to_move"]
        value = report["value"]
        if value in VALUES:
            node.value = value if node.attacker_to_move else FLIP[value]
            self.seen_draw |= value == "draw"
        elif value == "unknown":
            node.budget = max(node.budget, report["budget"])
        else:
            raise JournalError(f"a job reported the value {value!r}")
        self.refresh(node)

    def size(self) -> int:
        def count(node: Node) -> int:
            return 1 + sum(count(c) for c in node.children or ())

        return count(self.root)


class Journal:
    """The append-only file of a solve's jobs and expansions."""

    def __init__(self, path: Path, problem: Problem, resume: bool):
        self.path = Path(path)
        self.problem = problem
        exists = self.path.exists() and self.path.stat().st_size > 0
        if exists and not resume:
            raise JournalError(f"{self.path} holds a solve already: add --resume to go on with it")
        self.lines = self.read() if exists else []
        self.out = open(self.path, "a", encoding="utf-8")
        if not exists:
            self.write(problem.header())

    def read(self) -> list[dict]:
        text = self.path.read_text(encoding="utf-8")
        rows = text.splitlines()
        lines = []
        cut = False
        for number, line in enumerate(rows, 1):
            try:
                lines.append(json.loads(line))
            except json.JSONDecodeError:
                # A line cut short by a killed driver is the last one; anything else is damage.
                if number != len(rows) or text.endswith("\n"):
                    raise JournalError(f"{self.path}:{number} is not JSON") from None
                cut = True
        if not lines or lines[0].get("solve") != self.problem.header()["solve"]:
            raise JournalError(
                f"{self.path} is the journal of another solve "
                f"({lines[0].get('solve') if lines else 'empty'}): give the same board, "
                "variant, --after, --plies and --nodes, or another --checkpoint"
            )
        if not text.endswith("\n"):
            # The next record must start on a line of its own: drop a cut line, end a whole one.
            with open(self.path, "r+b") as f:
                if cut:
                    f.truncate(len(text.encode()) - len(rows[-1].encode()))
                else:
                    f.seek(0, 2)
                    f.write(b"\n")
        return lines[1:]

    def replay(self, tree: Tree) -> int:
        """Rebuilds `tree` from the journal; returns how many jobs it had."""
        for line in self.lines:
            node = tree.find(line["path"])
            if "expand" in line:
                if node.children is None:
                    tree.expand(node)
            else:
                tree.record(node, line["job"])
        tree.answer()
        return tree.jobs

    def write(self, line: dict) -> None:
        self.out.write(json.dumps(line, separators=(",", ":")) + "\n")
        self.out.flush()

    def job(self, node: Node, report: dict) -> None:
        self.write({"path": list(node.path), "job": report})

    def expansion(self, node: Node) -> None:
        self.write({"path": list(node.path), "expand": True})

    def close(self) -> None:
        self.out.close()
