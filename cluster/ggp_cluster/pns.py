"""The proof-number tree over the first plies of a job-level solve, without Dask.

Each leaf is settled by a job (`ggp-player solve --after ... --nodes B --json`) that
returns the leaf's exact value or "unknown". The tree proves one question at a time
about the side to move at its root (the attacker): "can it win?", then, if not and a
draw was seen, "can it at least draw?", as the binary's own solvers do. Proof numbers
(pn) count the effort still needed to show the attacker reaches the target, disproof
numbers (dn) the effort to show it does not. An unknown leaf counts as much as the
budget it has already withstood, in units of the first budget, times, on the side that
needs every child, the children its job left open (classic proof-number search counts a
new leaf's children the same way).

A job reports what it proved about each child of its position before it stopped, and the
child's key: a split leaf's children start from those bounds, and a position reached by
a second line of moves (or as the mirror image of one in the tree) is not solved twice
but stands for the first (its "twin"), whose numbers it takes; the tree is then a graph.

What is proven anywhere is shared with every job: each job reports its position's key
and what it proved about the positions one move on and about those further below whose
proofs cost it most (keys and bounds), and each job starts from all of it (`known`,
passed as `ggp-player solve --known`), so that its search stops wherever it meets a
position proven by another job (by any line, or as a mirror image) or by an earlier,
smaller run of its own leaf: a rerun goes on from what its last run proved rather than
from nothing.

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
# Outcomes in order, for bounds: the attacker's least and most.
RANK = {"loss": 0, "draw": 1, "win": 2}
# A rerun leaf's budget over its last one.
GROWTH = 4


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
    # The position's key, from the parent's job (None: not reported).
    key: str | None = None
    # The least and most the attacker's outcome can be (RANK), as proven so far.
    least: int = 0
    most: int = 2
    # The children's keys and bounds from the node's last job (the binary's "children").
    reported: list[dict] | None = None
    # The node of the same position this one stands for, and those standing for it.
    twin: Node | None = None
    proxies: list[Node] = field(default_factory=list)

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
    # The first node of each position key.
    by_key: dict[str, Node] = field(default_factory=dict)
    # What is proven of positions by key: the least and most (RANK) for the side to move.
    known: dict[str, tuple[int, int]] = field(default_factory=dict)
    jobs: int = 0
    job_nodes: int = 0
    job_seconds: float = 0.0

    # --- numbers -------------------------------------------------------------------

    def goal(self) -> int:
        return RANK[self.target]

    def leaf_numbers(self, node: Node) -> tuple[float, float]:
        if node.least >= self.goal():
            return 0.0, INF
        if node.most < self.goal():
            return INF, 0.0
        effort = max(1.0, node.budget / self.problem.first_budget)
        if not node.budget or not node.reported:
            return effort, effort
        # The children the job left open for the question: all of them must be settled
        # on the side that needs every child.
        open_children = sum(self.goal() > least and most >= self.goal()
                            for least, most in self.child_bounds(node))
        spread = effort * max(1, open_children)
        return (effort, spread) if node.attacker_to_move else (spread, effort)

    def child_bounds(self, node: Node) -> list[tuple[int, int]]:
        """The attacker's bounds after each of `node`'s moves, from its job's report and
        what is known of the children's positions."""
        bounds = []
        for child in node.reported or ():
            least, most = self.known.get(child["key"], (0, 2))
            # The report is for the side to move in the child: the attacker at even depths.
            bounds.append((least, most) if node.depth % 2 == 1 else (2 - most, 2 - least))
        return bounds

    def numbers(self, node: Node) -> None:
        """Sets `node`'s numbers from its twin's, its children's, or its own bounds."""
        if node.twin is not None:
            node.pn, node.dn = node.twin.pn, node.twin.dn
        elif node.children is None:
            node.pn, node.dn = self.leaf_numbers(node)
        elif node.attacker_to_move:
            node.pn = min(c.pn for c in node.children)
            node.dn = sum(c.dn for c in node.children)
        else:
            node.pn = sum(c.pn for c in node.children)
            node.dn = min(c.dn for c in node.children)

    def refresh(self, node: Node | None) -> None:
        """Recomputes the numbers of `node` and of those that depend on them (its
        ancestors and the nodes standing for it, and theirs), as far as they change."""
        todo = [node] if node is not None else []
        first = True
        while todo:
            n = todo.pop()
            before = (n.pn, n.dn)
            self.numbers(n)
            if first or (n.pn, n.dn) != before:
                todo.extend(n.proxies)
                if n.parent is not None:
                    todo.append(n.parent)
            first = False

    def refresh_all(self) -> None:
        def walk(node: Node) -> None:
            for child in node.children or ():
                walk(child)
            self.numbers(node)

        walk(self.root)
        # A twin may sit later in the walk than the nodes standing for it.
        for node in list(walk_nodes(self.root)):
            if node.proxies:
                for proxy in node.proxies:
                    self.refresh(proxy)

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
                # What the first question settled stays proven for the second.
                for key, bounds in self.settled_bounds():
                    self.learn(key, *bounds)
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
        if node.twin is not None:
            return self.select(node.twin)
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
        job; deeper, its job is rerun with four times the budget (with twice, the
        reruns below the budget that settles a leaf cost about 1.5 times its proof;
        with four times, about 0.6: a third fewer nodes on the boards measured)."""
        if node.budget == 0:
            return self.problem.first_budget
        if node.depth < self.problem.plies and node.moves:
            return None
        return GROWTH * node.budget

    def expand(self, node: Node) -> None:
        node.children = [Node(node.path + (m,), parent=node) for m in node.moves or ()]
        reported = node.reported if len(node.reported or ()) == len(node.children) else None
        if reported:
            for child, info, (least, most) in zip(node.children, reported,
                                                  self.child_bounds(node)):
                child.key, child.least, child.most = info["key"], least, most
                self.seen_draw |= 1 in (least, most)
                self.join_twin(child)
        for child in node.children:
            self.numbers(child)
        self.refresh(node)

    def join_twin(self, node: Node) -> None:
        """Makes `node` stand for the first node of its position, if there is one; else
        it is that first node."""
        twin = self.by_key.get(node.key)
        if twin is None:
            self.by_key[node.key] = node
            return
        ancestor = node.parent
        while ancestor is not None and ancestor is not twin:
            ancestor = ancestor.parent
        # One position, one side to move; never its own ancestor (no cycle).
        if ancestor is None and twin.depth % 2 == node.depth % 2:
            node.twin = twin
            twin.proxies.append(node)

    def under_settled(self, node: Node) -> bool:
        """Whether the node's value no longer matters to the question under way: every
        line from the root to it passes a settled node."""
        return not self.needed(node)

    def needed(self, node: Node) -> bool:
        if self.settled(node):
            return False
        if node.parent is None:
            return True
        return self.needed(node.parent) or any(self.needed(p) for p in node.proxies)

    # --- what is known ---------------------------------------------------------------

    def learn(self, key: str | None, least: int, most: int) -> None:
        """Adds what is proven of the position `key` for its side to move."""
        if key is None or (least, most) == (0, 2):
            return
        before = self.known.get(key, (0, 2))
        merged = (max(before[0], least), min(before[1], most))
        if merged[0] > merged[1]:
            raise JournalError(f"jobs contradict each other on the position {key}")
        self.known[key] = merged

    def learn_report(self, report: dict) -> None:
        """Adds what a job proved: its position's value, its children's bounds and those of
        the positions below whose proofs cost it most."""
        for child in [*report.get("children", ()), *report.get("proven", ())]:
            self.learn(child["key"], RANK[child.get("at_least", "loss")],
                       RANK[child.get("at_most", "win")])
        if report.get("key") and report["value"] in VALUES:
            rank = RANK[report["value"]]
            self.learn(report["key"], rank, rank)

    def settled_bounds(self):
        """The bounds the tree itself proves (for the side to move) on its settled
        positions whose keys it has."""
        goal = self.goal()
        for node in walk_nodes(self.root):
            if node.key is None or not self.settled(node):
                continue
            # The attacker's bounds, then the side to move's.
            least, most = (goal, 2) if node.pn == 0 else (0, goal - 1)
            yield node.key, (least, most) if node.attacker_to_move else (2 - most, 2 - least)

    def known_positions(self) -> dict[str, tuple[int, int]]:
        """Everything proven so far, by key, for the side to move: what a job is given."""
        known = dict(self.known)
        for key, (least, most) in self.settled_bounds():
            before = known.get(key, (0, 2))
            known[key] = (max(before[0], least), min(before[1], most))
        return known

    def apply_known(self, node: Node) -> bool:
        """Takes into `node` what other jobs proved of its position since it was made;
        whether that settles it."""
        if node.key not in self.known:
            return False
        least, most = self.known[node.key]
        if not node.attacker_to_move:
            least, most = 2 - most, 2 - least
        if (least, most) != (node.least, node.most):
            node.least, node.most = max(node.least, least), min(node.most, most)
            self.refresh(node)
        return self.settled(node)

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
        if "children" in report:
            node.reported = report["children"]
        if not node.path:
            self.to_move = report["to_move"]
        if node.key is None and report.get("key"):
            node.key = report["key"]
        self.learn_report(report)
        value = report["value"]
        if value in VALUES:
            node.value = value if node.attacker_to_move else FLIP[value]
            node.least = node.most = RANK[node.value]
            self.seen_draw |= value == "draw"
        elif value == "unknown":
            node.budget = max(node.budget, report["budget"])
        else:
            raise JournalError(f"a job reported the value {value!r}")
        self.refresh(node)

    def size(self) -> int:
        return sum(1 for _ in walk_nodes(self.root))

    def twins(self) -> int:
        """Nodes standing for another of the same position."""
        return sum(node.twin is not None for node in walk_nodes(self.root))


def walk_nodes(node: Node):
    yield node
    for child in node.children or ():
        yield from walk_nodes(child)


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
