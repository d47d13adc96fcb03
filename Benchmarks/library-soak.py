#!/usr/bin/env python3
"""The library under load from several processes at once (`scripts/soak library`, docs/soak.md).

Four writers, each its own process calling `pinhole library …` as a script would, for MINUTES:
imports of photos nobody imported before, deletes (to the Trash), restores, favourites on and
off, and album changes: each writer adds to and removes from an album of its own, and all of
them add to one shared album. A fifth process lists (`list --json`) and verifies (`verify`)
the whole time. Every writer keeps what it expects of its own items; afterwards the library is
compared with that: every item imported and not deleted is listed, with its favourite flag and
albums; every deleted one is not; files and rows agree (`verify`, and the files on disk);
SQLite's integrity check is ok. Prints the figures and one PASS/FAIL line per rule; exits 1 if
a rule fails.

Usage: library-soak.py PINHOLE MINUTES [--seed N] [--writers N]
"""
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from multiprocessing import Process, Queue


def run(pinhole, env, *args, timeout=120):
    """Runs `pinhole library ARGS`; returns (exit code, stdout, stderr, seconds)."""
    began = time.monotonic()
    try:
        done = subprocess.run([pinhole, "library", *args], env=env, capture_output=True, text=True, timeout=timeout)
        return done.returncode, done.stdout, done.stderr, time.monotonic() - began
    except subprocess.TimeoutExpired:
        return "hang", "", f"no answer within {timeout} s", time.monotonic() - began


def writer(index, pinhole, env, sources, seconds, seed, results):
    """One writer's loop; puts its expectations and figures on `results`."""
    rng = random.Random(seed * 1000 + index)
    own_album = f"writer-{index}"
    code, _, err, _ = run(pinhole, env, "album", "create", own_album)
    problems = [] if code == 0 else [f"album create {own_album}: exit {code}: {err.strip()}"]
    items = {}  # id -> {"deleted": bool, "favorite": bool, "own_album": bool, "shared": bool}
    ops, times, codes = {}, {}, {}
    deadline = time.monotonic() + seconds
    next_source = 0
    while time.monotonic() < deadline:
        present = [i for i, s in items.items() if not s["deleted"]]
        trashed = [i for i, s in items.items() if s["deleted"]]
        choices = ["import"] * 3
        if present:
            choices += ["delete", "favorite", "favorite", "album add", "album remove", "shared add"]
        if trashed:
            choices += ["restore"]
        op = rng.choice(choices)
        if op == "import":
            if next_source >= len(sources):
                continue
            batch = sources[next_source:next_source + rng.randint(1, 3)]
            next_source += len(batch)
            code, out, err, took = run(pinhole, env, "import", *batch)
            lines = [line.split("\t") for line in out.splitlines() if "\t" in line]
            if code == 0 and len(lines) == len(batch):
                for fields in lines:
                    items[fields[0]] = {"deleted": False, "favorite": False, "own_album": False, "shared": False}
            else:
                problems.append(f"import of {len(batch)}: exit {code}, {len(lines)} imported: {err.strip()[:200]}")
        else:
            target = rng.choice(trashed if op == "restore" else present)
            state = items[target]
            if op == "delete":
                args = ["delete", target]
            elif op == "restore":
                args = ["restore", target]
            elif op == "favorite":
                args = ["favorite", target] + ([] if not state["favorite"] else ["--off"])
            elif op == "album add":
                args = ["album", "add", own_album, target]
            elif op == "album remove":
                args = ["album", "remove", own_album, target]
            else:
                args = ["album", "add", "shared", target]
            code, out, err, took = run(pinhole, env, *args)
            if code == 0:
                if op == "delete":
                    state["deleted"] = True
                elif op == "restore":
                    state["deleted"] = False
                elif op == "favorite":
                    state["favorite"] = not state["favorite"]
                elif op == "album add":
                    state["own_album"] = True
                elif op == "album remove":
                    state["own_album"] = False
                else:
                    state["shared"] = True
            else:
                problems.append(f"{' '.join(args)}: exit {code}: {err.strip()[:200]}")
        ops[op] = ops.get(op, 0) + 1
        times.setdefault(op, []).append(took)
        codes[str(code)] = codes.get(str(code), 0) + 1
    results.put({"writer": index, "items": items, "ops": ops, "times": times, "codes": codes, "problems": problems})


def reader(pinhole, env, seconds, results):
    """Lists and verifies until the writers are done; puts its figures on `results`."""
    lists = verifies = disagreed = 0
    problems, times = [], {"list": [], "verify": []}
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        code, out, err, took = run(pinhole, env, "list", "--json")
        lists += 1
        times["list"].append(took)
        if code != 0:
            problems.append(f"list: exit {code}: {err.strip()[:200]}")
        else:
            try:
                json.loads(out)
            except ValueError as error:
                problems.append(f"list printed what is not JSON: {error}")
        code, out, err, took = run(pinhole, env, "verify")
        verifies += 1
        times["verify"].append(took)
        # verify reads the files and the rows holding the library's lock: even while writers
        # run, it sees each change whole, so a disagreement is a failure.
        if code == 1:
            disagreed += 1
        if code != 0:
            problems.append(f"verify: exit {code}: {out.strip()[:200]} {err.strip()[:200]}")
    results.put({"reader": True, "lists": lists, "verifies": verifies, "disagreed": disagreed, "times": times, "problems": problems})


def figures(values):
    """Median and 99th percentile of `values` in milliseconds."""
    if not values:
        return "none"
    ordered = sorted(values)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))]
    return f"median {statistics.median(ordered) * 1000:.0f} ms, p99 {p99 * 1000:.0f} ms, most {ordered[-1] * 1000:.0f} ms"


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    pinhole, minutes = os.path.abspath(args[0]), float(args[1])
    seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 1
    writers = int(args[args.index("--writers") + 1]) if "--writers" in args else 4
    seconds = minutes * 60
    folder = tempfile.mkdtemp(prefix="pinhole-library-soak.")
    env = dict(os.environ, PINHOLE_LIBRARY=os.path.join(folder, "library"), HOME=os.path.join(folder, "home"),
               XDG_DATA_HOME=os.path.join(folder, "home", ".local", "share"), LANG="C.UTF-8")
    os.makedirs(env["XDG_DATA_HOME"])
    # Photos nobody imported before: frames of FFmpeg's test pattern (a counter in each, so no two
    # are duplicates), enough for every writer at its fastest.
    sources = os.path.join(folder, "sources")
    os.makedirs(sources)
    count = int(max(200, seconds * 12))
    subprocess.run(["ffmpeg", "-v", "error", "-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-frames:v", str(count * writers),
                    "-q:v", "5", os.path.join(sources, "%06d.jpg")], check=True)
    names = sorted(os.listdir(sources))
    print(f"library soak: {writers} writers and 1 reader for {minutes:g} min, seed {seed}, in {folder}; {len(names)} photos to import")
    code, _, err, _ = run(pinhole, env, "album", "create", "shared")
    if code != 0:
        sys.exit(f"library soak: album create shared: exit {code}: {err}")
    results = Queue()
    processes = [Process(target=writer, args=(i, pinhole, env, [os.path.join(sources, n) for n in names[i::writers]], seconds, seed, results))
                 for i in range(writers)]
    processes.append(Process(target=reader, args=(pinhole, env, seconds, results)))
    began = time.monotonic()
    for p in processes:
        p.start()
    outcomes = [results.get() for _ in processes]
    for p in processes:
        p.join()
    lasted = time.monotonic() - began
    written = [o for o in outcomes if "writer" in o]
    read = next(o for o in outcomes if "reader" in o)

    rules = []
    problems = [p for o in outcomes for p in o["problems"]]
    ops, times, codes = {}, {}, {}
    for o in written:
        for k, v in o["ops"].items():
            ops[k] = ops.get(k, 0) + v
        for k, v in o["times"].items():
            times.setdefault(k, []).extend(v)
        for k, v in o["codes"].items():
            codes[k] = codes.get(k, 0) + v
    print(f"ran {lasted:.0f} s: {sum(ops.values())} writer commands, {read['lists']} lists and {read['verifies']} verifies beside them "
          f"({read['disagreed']} verifies saw files and rows disagree while writers ran)")
    for op in sorted(ops):
        print(f"  {op}: {ops[op]} ({figures(times[op])})")
    for op in ("list", "verify"):
        print(f"  {op} (reader): {figures(read['times'][op])}")
    print(f"  writers' exit codes: {dict(sorted(codes.items()))}")
    for problem in problems[:20]:
        print(f"  problem: {problem}")
    rules.append(("every command answered with exit 0 (no busy database, no hang, no failure)", not problems))

    # The library afterwards, against what the writers expect.
    code, out, err, _ = run(pinhole, env, "list", "--json")
    listed = {item["id"]: item for item in json.loads(out)} if code == 0 else {}
    members = {}
    for album in ["shared"] + [f"writer-{i}" for i in range(writers)]:
        c, o, _, _ = run(pinhole, env, "list", "--json", "--album", album)
        members[album] = {item["id"] for item in json.loads(o)} if c == 0 else None
    lost, wrong = [], []
    expected_present = 0
    for o in written:
        for item, state in o["items"].items():
            if state["deleted"]:
                if item in listed:
                    wrong.append(f"{item} was deleted but is listed")
                continue
            expected_present += 1
            if item not in listed:
                lost.append(item)
                continue
            if listed[item]["favorite"] != state["favorite"]:
                wrong.append(f"{item}: favourite {listed[item]['favorite']}, expected {state['favorite']}")
            if (item in (members[f"writer-{o['writer']}"] or set())) != state["own_album"]:
                wrong.append(f"{item}: in writer-{o['writer']} is {not state['own_album']}, expected {state['own_album']}")
            if state["shared"] and item not in (members["shared"] or set()):
                wrong.append(f"{item}: added to shared, not in it")
    strangers = set(listed) - {i for o in written for i in o["items"]}
    imported = sum(len(o["items"]) for o in written)
    deleted = sum(1 for o in written for s in o["items"].values() if s["deleted"])
    print(f"afterwards: {imported} imported, {deleted} in the Trash, {expected_present} expected in the library, {len(listed)} listed; "
          f"{len(members['shared'] or [])} in the shared album")
    for line in (lost[:5] + wrong[:10]):
        print(f"  {line}")
    rules.append(("every change is there: each item imported and not deleted is listed, with its favourite flag and albums; "
                  "each deleted one is not; nothing else is listed", not lost and not wrong and not strangers))
    on_disk = len([n for n in os.listdir(os.path.join(env["PINHOLE_LIBRARY"], "Photos"))])
    code, out, err, _ = run(pinhole, env, "verify")
    print(f"verify: exit {code} {out.strip()[:300]} {err.strip()[:300]}; {on_disk} photo files on disk")
    rules.append(("files and rows agree (verify exits 0; as many photo files as listed photos)", code == 0 and on_disk == len(listed)))
    database = os.path.join(env["PINHOLE_LIBRARY"], "library.sqlite3")
    with sqlite3.connect(f"file:{database}?mode=ro", uri=True) as connection:
        integrity = connection.execute("PRAGMA integrity_check").fetchone()[0]
    print(f"integrity_check: {integrity}")
    rules.append(("SQLite's integrity check is ok", integrity == "ok"))

    failed = False
    for rule, held in rules:
        print(f"{'PASS' if held else 'FAIL'}: {rule}")
        failed |= not held
    if not failed:
        subprocess.run(["rm", "-rf", folder])
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
