"""How many hand-written rules the answer path holds: regular expressions and numeric knobs.

    python benchmarks/answer_core.py [ROOT]   # default: backend/

A regular expression is a `re.compile` call, or a pattern given to a `re` function directly
(`re.search(r"…", text)`). A numeric knob is a module- or class-level constant whose name is in
capitals and whose value is a number (`WINDOW = 2`, `NEAR_BEST = 0.8`). Limits that guard
resources (`MAX_QUESTION`) count too: the script does not judge which knob is a rule. Learned
weights (`grounding/judge.json`) are data, not code, and are not counted.
"""

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

_RE_FUNCTIONS = {"compile", "search", "match", "fullmatch", "sub", "subn", "split", "findall", "finditer"}


@dataclass(frozen=True)
class Rules:
    regular_expressions: int
    numeric_knobs: int


def _is_number(node: ast.expr) -> bool:
    if isinstance(node, ast.UnaryOp):
        return _is_number(node.operand)
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def rules_in(source: str) -> Rules:
    tree = ast.parse(source)
    patterns = sum(
        1 for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
        and isinstance(node.func.value, ast.Name) and node.func.value.id == "re"
        and node.func.attr in _RE_FUNCTIONS
        and (node.func.attr == "compile" or (node.args and isinstance(node.args[0], ast.Constant | ast.JoinedStr)))
    )
    knobs = 0
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef))]:
        for statement in scope.body:
            targets = (statement.targets if isinstance(statement, ast.Assign)
                       else [statement.target] if isinstance(statement, ast.AnnAssign) and statement.value else [])
            value = statement.value if isinstance(statement, ast.Assign | ast.AnnAssign) else None
            knobs += sum(
                1 for target in targets
                if isinstance(target, ast.Name) and target.id.isupper() and value is not None and _is_number(value)
            )
    return Rules(patterns, knobs)


def count(root: Path) -> Rules:
    found = [rules_in(path.read_text(encoding="utf-8")) for path in sorted(root.rglob("*.py"))]
    return Rules(sum(r.regular_expressions for r in found), sum(r.numeric_knobs for r in found))


if __name__ == "__main__":
    rules = count(Path(sys.argv[1]) if len(sys.argv) > 1 else Path("backend"))
    print(f"regular expressions: {rules.regular_expressions}\nnumeric knobs: {rules.numeric_knobs}")
