#!/usr/bin/env python3
"""Settle the blind ratings of the secret corpus into
tests/fixtures/secrets/labels.jsonl.

Usage: scripts/secret-labels.py RATER_A.jsonl RATER_B.jsonl [THIRD.jsonl]

Each rater file holds one {"id", "label": "secret"|"not", "sure"} per
candidate, in candidates.jsonl's order, made without seeing the detector's
output or the other rater's file. Where A and B differ, the third look
(a file of {"id", "label"} for exactly those items) settles it; without it
the disagreements are listed and nothing is written. Prints the agreement
(share of equal labels and Cohen's kappa).
"""
import json
import sys
from pathlib import Path

DIR = Path(__file__).resolve().parent.parent / "tests/fixtures/secrets"


def read(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines() if line.strip()]


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    ids = [c["id"] for c in read(DIR / "candidates.jsonl")]
    a, b = (read(p) for p in sys.argv[1:3])
    for name, rater in (("A", a), ("B", b)):
        if [r["id"] for r in rater] != ids:
            sys.exit(f"rater {name}: ids differ from candidates.jsonl")
        bad = [r["id"] for r in rater if r["label"] not in ("secret", "not")]
        if bad:
            sys.exit(f"rater {name}: unknown labels at {bad[:5]}")
    n = len(ids)
    same = sum(x["label"] == y["label"] for x, y in zip(a, b))
    pa = sum(x["label"] == "secret" for x in a) / n
    pb = sum(y["label"] == "secret" for y in b) / n
    chance = pa * pb + (1 - pa) * (1 - pb)
    kappa = (same / n - chance) / (1 - chance)
    print(f"{n} items; same label on {same} ({100 * same / n:.1f} %); Cohen's kappa {kappa:.3f}")
    differ = [x["id"] for x, y in zip(a, b) if x["label"] != y["label"]]
    if len(sys.argv) == 3:
        print(f"{len(differ)} disagreements, to settle by a third look:", " ".join(differ))
        return
    third = {t["id"]: t["label"] for t in read(sys.argv[3])}
    if sorted(third) != sorted(differ):
        sys.exit("the third look must settle exactly the disagreements")
    with open(DIR / "labels.jsonl", "w") as out:
        for x, y in zip(a, b):
            settled = x["label"] if x["label"] == y["label"] else third[x["id"]]
            row = {
                "id": x["id"],
                "rater_a": x["label"],
                "rater_b": y["label"],
                "sure_a": bool(x.get("sure", True)),
                "sure_b": bool(y.get("sure", True)),
                "third": third.get(x["id"]),
                "label": settled,
            }
            out.write(json.dumps(row) + "\n")
    print(f"wrote {DIR / 'labels.jsonl'}")


if __name__ == "__main__":
    main()
