# SPDX-License-Identifier: Apache-2.0
"""Cycle models of the ChaCha20 / Poly1305 loops on AArch64 (bench/arm-mca.sh).

1. Find the loops by structure in objdump disassembly (ours: the benchmark
   program, linked with the build's kernels; OpenSSL's: the stripped arm64
   libcrypto). A signature loop is a backward branch whose body holds ChaCha20
   rounds (vector rev32 .8h or scalar ror #16, four or more) or Poly1305
   products (umulh, or umlal/umull .2d, five or more). Its pass loop is the
   innermost loop around it that writes output (ChaCha20, AEAD) or reads input
   (Poly1305): one trip of it is one steady-state pass.
2. Run the workload (bench/arm-loop.c) under qemu-user, logging only those
   loops (-dfilter), and cut the executed instruction stream at the pass
   loop's head: the middle pass of a long call is the steady-state pass, with
   the path and inner trip counts the code really takes.
3. Bytes per pass, by structure: the `sub(s) xN, xN, #imm` of the body (a
   length count), else the bytes its non-stack stores write (ChaCha20) or
   loads read (Poly1305), inner loops left out; failing both, L / passes in
   whole blocks. The bytes a loop covers (passes x bytes per pass) weight it
   in the whole-length estimate: the sum over the loops of a call of their
   cycles per byte times their share of L.
4. Decode the pass with llvm-mc and run llvm-mca on it for each model: the
   cycles per pass are (cycles(40 iterations) - cycles(10)) / 30, steady
   state with the loop-carried dependencies of back-to-back passes.
Caveats: llvm-mca knows no caches, assumes every branch predicted and models
each core only as well as LLVM's scheduling model describes it.
"""
import collections
import os
import re
import subprocess
import sys

LLVM_MC = os.environ.get("LLVM_MC", "llvm-mc-19")
LLVM_MCA = os.environ.get("LLVM_MCA", "llvm-mca-19")
LLC = os.environ.get("LLC", LLVM_MCA.replace("llvm-mca", "llc"))
# the models of cores without SVE: an SVE pass has no cycles there
NO_SVE = {"cortex-a53", "cortex-a55", "cortex-a57", "cortex-a72", "neoverse-n1",
          "apple-m1", "exynos-m5", "thunderx2t99", "ampere1"}
# the SVE vector length of the cores a model stands for (bits): an SVE pass
# traced at another length is not that core's pass
SVE_VL = {"neoverse-v1": 256, "neoverse-n2": 128, "neoverse-v2": 128, "a64fx": 512}

BRANCH = re.compile(r"^(b|b\.\w+|cbz|cbnz|tbz|tbnz)$")


# ---- static: objdump disassembly -----------------------------------------

class Image:
    """One ELF file's instructions: addr -> (mnemonic, operands), and symbols."""

    def __init__(self, name, dis_path):
        self.name = name
        self.insns = {}
        self.funcs = []     # (start, name)
        line_re = re.compile(r"^\s*([0-9a-f]+):\t(\S+)\s*(.*)$")
        sym_re = re.compile(r"^([0-9a-f]+) <(.+)>:$")
        with open(dis_path) as f:
            for line in f:
                m = line_re.match(line)
                if m:
                    ops = m.group(3).split("//")[0].strip()
                    self.insns[int(m.group(1), 16)] = (m.group(2), ops)
                    continue
                m = sym_re.match(line)
                if m and "@@" not in m.group(2) and "+0x" not in m.group(2):
                    self.funcs.append((int(m.group(1), 16), m.group(2)))
        self.addrs = sorted(self.insns)
        self.index = {a: i for i, a in enumerate(self.addrs)}
        self.funcs.sort()
        self.all_loops = self.loops()

    def func_of(self, addr):
        name = None
        for start, n in self.funcs:
            if start > addr:
                break
            name = n
        return name

    def func_range(self, addr):
        """[start, last instruction] of the function holding addr."""
        start, end = self.addrs[0], self.addrs[-1]
        for s, _ in self.funcs:
            if s <= addr:
                start = s
            elif s > addr:
                end = self.addrs[self.index[s] - 1] if s in self.index else end
                break
        return start, end

    def body(self, lo, hi):
        """Instructions with lo <= addr <= hi."""
        i = self.index[lo]
        while i < len(self.addrs) and self.addrs[i] <= hi:
            yield self.addrs[i], self.insns[self.addrs[i]]
            i += 1

    def loops(self):
        """(head, branch) of every backward branch spanning at most 16 KiB
        (longer ones are tail calls, not loops)."""
        out = []
        for a in self.addrs:
            mn, ops = self.insns[a]
            if not BRANCH.match(mn):
                continue
            m = re.search(r"\b([0-9a-f]+) <", ops)
            if m:
                t = int(m.group(1), 16)
                if t <= a and a - t <= 16384 and t in self.index:
                    out.append((t, a))
        return out


def base_reg(ops):
    m = re.search(r"\[(\w+)", ops)
    return m.group(1) if m else None


FEATURES = ("vrot16", "srot16", "umulh", "vmul", "store", "load")


def insn_features(mn, ops):
    f = []
    if (mn == "rev32" and ".8h" in ops) or (mn == "revh" and ops.startswith("z")) \
            or (mn == "xar" and ops.endswith("#16")):
        f.append("vrot16")
    elif mn == "ror" and ops.startswith("w") and ops.endswith("#16"):
        f.append("srot16")
    elif mn == "umulh":
        f.append("umulh")
    elif mn.startswith(("umlal", "umull")) and ".2d" in ops:
        f.append("vmul")
    if mn.startswith("st") and base_reg(ops) not in (None, "sp"):
        f.append("store")
    if mn.startswith("ld") and base_reg(ops) not in (None, "sp"):
        f.append("load")
    return f


class Features:
    """Feature counts of any address range, from prefix sums."""

    def __init__(self, img):
        self.img = img
        self.sums = {k: [0] for k in FEATURES}
        for a in img.addrs:
            fs = insn_features(*img.insns[a])
            for k in FEATURES:
                self.sums[k].append(self.sums[k][-1] + (k in fs))

    def __call__(self, lo, hi):
        i, j = self.img.index[lo], self.img.index[hi] + 1
        return {k: self.sums[k][j] - self.sums[k][i] for k in FEATURES}


def kind_of(f):
    chacha = f["vrot16"] >= 4 or f["srot16"] >= 4
    poly = f["umulh"] >= 2 or f["vmul"] >= 5
    if chacha and poly:
        return "aead"
    return "chacha" if chacha else "poly" if poly else None


def pass_loops(img):
    """{head: (branch, kind, entry)} of the pass loops found by structure."""
    loops = img.all_loops
    feat = Features(img)
    found = {}
    for s in loops:
        kind = kind_of(feat(*s))
        if kind is None:
            continue
        need = "load" if kind == "poly" else "store"
        around = sorted((l for l in loops if l[0] <= s[0] and s[1] <= l[1]),
                        key=lambda l: l[1] - l[0])
        for p in around:
            if feat(*p)[need] > 0:
                if p[0] not in found or p[1] < found[p[0]][0]:
                    # a block entering the head by fall-through starts after
                    # the last branch before it: log from there
                    i = img.index[p[0]]
                    while i > 0 and not BRANCH.match(img.insns[img.addrs[i - 1]][0]) \
                            and img.insns[img.addrs[i - 1]][0] != "ret" \
                            and p[0] - img.addrs[i - 1] < 4096:
                        i -= 1
                    found[p[0]] = (p[1], kind_of(feat(*p)), img.addrs[i])
                break
    return found


def access_bytes(mn, ops):
    """Bytes one load or store moves (0 for the stack and literals)."""
    if base_reg(ops) in (None, "sp"):
        return 0
    regs = re.findall(r"\b([xwqdsvb])(\d+)(\.\d*[bhsd])?", ops.split("[")[0])
    size = {"x": 8, "w": 4, "q": 16, "d": 8, "s": 4, "b": 1}
    n = 0
    for kind, _, arr in regs:
        if kind == "v":
            lanes = re.match(r"\.(\d+)([bhsd])", arr or "")
            n += int(lanes.group(1)) * {"b": 1, "h": 2, "s": 4, "d": 8}[lanes.group(2)] \
                if lanes else 16
        else:
            n += size[kind]
    return n


def static_bytes_per_pass(img, head, branch, kind):
    """Largest `sub(s) xN, xN, #imm` (imm a multiple of 16) outside inner
    loops; failing that, the bytes the body loads (Poly1305) or stores."""
    inner = [l for l in img.all_loops if head <= l[0] and l[1] < branch and l != (head, branch)]
    best = 0
    for a, (mn, ops) in img.body(head, branch):
        if any(l[0] <= a <= l[1] for l in inner):
            continue
        m = re.match(r"(x\d+), (x\d+), #0x([0-9a-f]+)$", ops)
        if mn in ("sub", "subs") and m and m.group(1) == m.group(2):
            v = int(m.group(3), 16)
            if v % 16 == 0:
                best = max(best, v)
    if best == 0:
        want = "ld" if kind == "poly" else "st"
        # Poly1305: the message comes in by structure loads (ld1, ld2) or
        # pairs of general registers; a q, d or s register load (ldr, ldp)
        # is a table the loop reloads (the neon_split steps' powers of r)
        best = sum(access_bytes(mn, ops) for a, (mn, ops) in img.body(head, branch)
                   if mn.startswith(want) and not any(l[0] <= a <= l[1] for l in inner)
                   and not (want == "ld" and re.match(r"[qds]\d", ops)))
    return best


# ---- dynamic: qemu traces --------------------------------------------------

def qemu_run(qemu, loop, who, length, iters, log=None, dfilter=None):
    # qemu's options, then (OpenSSL 3.5) a loader and its arguments
    k = next((i for i, w in enumerate(qemu) if w.endswith("/ld-linux-aarch64.so.1")),
             len(qemu))
    cmd = list(qemu[:k])
    if log:
        cmd += ["-d", "in_asm,exec,nochain", "-D", log]
        if dfilter:
            cmd += ["-dfilter", dfilter]
    cmd += qemu[k:] + [loop, who, str(length), str(iters)]
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, check=True)
    bases = {}
    for line in r.stderr.splitlines():
        p = line.split()
        if len(p) >= 3 and p[0] == "base":
            bases[p[1]] = int(p[2], 16)
    return bases


def bswap32(w):
    return int.from_bytes(w.to_bytes(4, "little"), "big")


def read_trace(log):
    """The executed blocks in order, each a list of (pc, word)."""
    blocks, cur, execs = {}, None, []
    insn_re = re.compile(r"^0x([0-9a-f]+):\s+([0-9a-f]{8})\s")
    byte_re = re.compile(r"\.byte\s+0x([0-9a-f]{2}),\s*0x([0-9a-f]{2}),"
                         r"\s*0x([0-9a-f]{2}),\s*0x([0-9a-f]{2})")
    # qemu 7.2 prints the word of each instruction byte-swapped under
    # -cpu a64fx (its .byte lists, in memory order, show it): every word of
    # such a trace is swapped back
    swapped = None
    with open(log) as f:
        for line in f:
            if line.startswith("IN:"):
                cur = []
                continue
            if cur is not None:
                m = insn_re.match(line)
                if m:
                    w = int(m.group(2), 16)
                    b = byte_re.search(line)
                    if b and swapped is None:
                        le = int("".join(reversed(b.groups())), 16)
                        if le != w and bswap32(w) == le:
                            swapped = True
                        elif le == w and bswap32(w) != w:
                            swapped = False
                    cur.append((int(m.group(1), 16), w))
                    continue
                if cur:
                    blocks[cur[0][0]] = cur
                cur = None
            if line.startswith("Trace "):
                pc = int(line.split("[")[1].split("/")[1], 16)
                if pc in blocks:
                    execs.append(blocks[pc])
    if swapped:
        execs = [[(pc, bswap32(w)) for pc, w in blk] for blk in execs]
    return execs


def passes(execs, head):
    """Split the instruction stream at every execution of head."""
    out, cur = [], None
    for blk in execs:
        for pc, w in blk:
            if pc == head:
                if cur is not None:
                    out.append(cur)
                cur = []
            if cur is not None:
                cur.append(w)
    return out


# ---- llvm-mc / llvm-mca ----------------------------------------------------

_text = {}


def decode(words):
    todo = sorted(set(words) - set(_text))
    if todo:
        inp = "".join("0x%02x,0x%02x,0x%02x,0x%02x\n" % (w & 255, w >> 8 & 255,
                      w >> 16 & 255, w >> 24) for w in todo)
        r = subprocess.run([LLVM_MC, "--disassemble", "-triple=aarch64",
                            "-mattr=+v8.5a,+crypto,+sha3,+sve2"], input=inp,
                           capture_output=True, text=True)
        lines = [l.strip() for l in r.stdout.splitlines()
                 if l.strip() and not l.strip().startswith(".")]
        if len(lines) != len(todo):
            # some word llvm-mc cannot decode: one at a time, those marked
            lines = []
            for w in todo:
                r = subprocess.run([LLVM_MC, "--disassemble", "-triple=aarch64",
                                    "-mattr=+v8.5a,+crypto,+sha3,+sve2"],
                                   input="0x%02x,0x%02x,0x%02x,0x%02x\n" % (
                                       w & 255, w >> 8 & 255, w >> 16 & 255, w >> 24),
                                   capture_output=True, text=True)
                ls = [l.strip() for l in r.stdout.splitlines()
                      if l.strip() and not l.strip().startswith(".")]
                lines.append(ls[0] if len(ls) == 1 else "<undecodable 0x%08x>" % w)
        for w, l in zip(todo, lines):
            _text[w] = l.replace("\t", " ")
    return [_text[w] for w in words]


def mca_cycles(asm, cpu, vl=0):
    """Steady-state cycles of one pass of asm on cpu's model; None for SVE
    code on a model without SVE, or traced at another vector length than
    the model's cores have."""
    if re.search(r"\bz\d+\.", asm):
        if cpu in NO_SVE or (vl and SVE_VL.get(cpu, vl) != vl):
            return None
    total = []
    for it in (10, 40):
        r = subprocess.run([LLVM_MCA, "-mtriple=aarch64", "-mcpu=" + cpu,
                            "-iterations=%d" % it, "-all-views=false",
                            "-summary-view"], input=asm, capture_output=True,
                           text=True)
        m = re.search(r"Total Cycles:\s+(\d+)", r.stdout)
        if not m and "instruction requires" in r.stderr:
            return None         # e.g. SVE2 code on the model of an SVE-only core
        if not m:
            raise SystemExit("llvm-mca failed on %s:\n%s" % (cpu, r.stderr[-2000:]))
        total.append(int(m.group(1)))
    return (total[1] - total[0]) / 30.0


FINGERPRINT_BLOCK = """add v0.4s, v0.4s, v1.4s
eor v3.16b, v3.16b, v0.16b
rev32 v3.8h, v3.8h
ushr v4.4s, v3.4s, #20
sli v4.4s, v3.4s, #12
tbl v5.16b, {v4.16b}, v6.16b
add w1, w1, w2
eor w3, w3, w1
ror w3, w3, #16
mul x4, x5, x6
umulh x7, x5, x6
adds x8, x8, x4
adc x9, x9, x7
umlal v10.2d, v11.2s, v12.2s
ld1 {v13.16b}, [x0], #16
st1 {v14.16b}, [x10], #16
ldp x11, x12, [x13], #16
"""


def model_groups():
    """-mcpu names grouped by identical llvm-mca output (same model)."""
    r = subprocess.run([LLC, "-mtriple=aarch64", "-mcpu=help"],
                       capture_output=True, text=True)
    names = re.findall(r"^\s+(\S+)\s+- Select the", r.stdout + r.stderr, re.M)
    groups = collections.OrderedDict()
    for n in sorted(set(names)):
        r = subprocess.run([LLVM_MCA, "-mtriple=aarch64", "-mcpu=" + n,
                            "-iterations=100", "-timeline"],
                           input=FINGERPRINT_BLOCK, capture_output=True, text=True)
        if r.returncode != 0 or "Total Cycles" not in r.stdout:
            groups.setdefault("(no model)", []).append(n)
            continue
        groups.setdefault(r.stdout, []).append(n)
    return groups


# ---- driver ------------------------------------------------------------------

def describe(kind, img_name, img, head, asm, bpp, sve=False):
    text = "\n".join(asm)
    vrot = len(re.findall(r"^rev32 v\d+\.8h", text, re.M))
    srot = len(re.findall(r"^ror w\d+, w\d+, #16$", text, re.M))
    where = img.func_of(head) if img_name == "self" else None
    who = "ours" if img_name == "self" else "OpenSSL"
    if kind in ("chacha", "aead"):
        scalar = srot / 80.0
        vec = bpp / 64.0 - scalar
        unit = "SVE" if sve else "NEON"
        d = "%s ChaCha20 %g %s + %g scalar blocks" % (who, vec, unit, scalar) if srot \
            else "%s ChaCha20 %g %s blocks" % (who, vec, unit)
        if kind == "aead":
            d = d.replace("ChaCha20", "ChaCha20-Poly1305 (stitched)")
    else:
        d = "%s Poly1305 %s" % (who, "NEON" if re.search(r"^uml(al|l)2? v", text, re.M)
                                else "scalar")
    return d + (" [%s]" % where if where else "")


def side_spec(text):
    """LABEL|DIS|QEMU PREFIX|ENV|VL: one side of the comparison."""
    label, dis, qemu, env, vl = text.split("|")
    envd = dict(kv.split("=", 1) for kv in env.split(",") if kv)
    return {"label": label, "dis": dis, "qemu": qemu.split(), "env": envd,
            "vl": int(vl or 0), "img": "self" if label.startswith("ours") else "libcrypto"}


def main(argv):
    import argparse
    ap = argparse.ArgumentParser()
    ap.add_argument("--loop", required=True)
    ap.add_argument("--side", action="append", required=True,
                    help="LABEL|DISASSEMBLY|QEMU PREFIX|ENV K=V,...|SVE VL (0: any)")
    ap.add_argument("--work", required=True)
    ap.add_argument("--models", default="cortex-a57,neoverse-n1")
    ap.add_argument("--runs", required=True,
                    help="kind:len,len;... e.g. chacha:16384,448;poly:16384")
    ap.add_argument("--groups", action="store_true")
    a = ap.parse_args(argv)
    models = a.models.split(",")
    sides = [side_spec(t) for t in a.side]

    if a.groups:
        print("# LLVM -mcpu names with identical llvm-mca output on one mixed"
              " NEON/scalar block (same scheduling model):")
        for out, names in model_groups().items():
            print("#   " + " ".join(names))
        print()

    imgs, cands = {}, {}
    for sd in sides:
        if sd["dis"] not in imgs:
            imgs[sd["dis"]] = Image(sd["img"], sd["dis"])
            cands[sd["dis"]] = pass_loops(imgs[sd["dis"]])
    saved = dict(os.environ)

    rows = []        # (kind, side, desc, bpp, insns/pass, {cpu: c/B}, length, share)
    seen = set()
    log = os.path.join(a.work, "trace.log")
    for sd in sides:
        os.environ.clear()
        os.environ.update(saved)
        os.environ.update(sd["env"])
        img, img_name = imgs[sd["dis"]], sd["img"]
        base = qemu_run(sd["qemu"], a.loop, "chacha-ours", 64, 0)[img_name]
        who_side = "ours" if img_name == "self" else "openssl"
        for run in a.runs.split(";"):
            kind, lens = run.split(":")
            for length in (int(x) for x in lens.split(",")):
                want = {h: v for h, v in cands[sd["dis"]].items()
                        if v[1] == kind or (kind == "aead" and v[1] in ("chacha", "poly"))}
                if not want:
                    continue
                ranges = []
                for h, (br, _, entry) in want.items():
                    if img_name == "self":      # the whole function: no block missed
                        entry, br = img.func_range(h)
                    ranges.append("0x%x..0x%x" % (base + entry, base + br + 3))
                occ, segs = collections.Counter(), {}
                for ln, it in [(length, 1), (length, 0)]:
                    qemu_run(sd["qemu"], a.loop, "%s-%s" % (kind, who_side), ln, it, log,
                             ",".join(ranges))
                    ex = read_trace(log)
                    os.unlink(log)
                    for h in want:
                        ps = passes(ex, base + h)
                        occ[(h, ln, it)] = len(ps) + 1 if ps else int(any(
                            pc == base + h for b in ex for pc, _ in b))
                        if (ln, it) == (length, 1):
                            segs[h] = ps
                for h, (br, k, _) in want.items():
                    n_full = occ[(h, length, 1)] - occ[(h, length, 0)]
                    if (kind, sd["label"], h) in seen or n_full < 2 or not segs[h]:
                        continue
                    seen.add((kind, sd["label"], h))
                    asm = decode(segs[h][(len(segs[h]) - 1) // 2])
                    bad = [l for l in asm if l.startswith("<undecodable")]
                    if bad:
                        print("# skipped %s loop at 0x%x: llvm-mc cannot decode %s"
                              % (sd["label"], h, bad[0]), file=sys.stderr)
                        continue
                    sve = any(re.search(r"\bz\d+\.", l) for l in asm)
                    # an SVE pass: bytes by the trace (its counts are cntb-based)
                    bpp = 0 if sve else static_bytes_per_pass(img, h, br, k)
                    if not bpp and n_full >= 8:
                        g = 16 if k == "poly" else 64
                        # an SVE pass: to the nearest whole block (the loop
                        # head may count one trip more than the passes)
                        bpp = (round(length / n_full / g) if sve
                               else length // n_full // g) * g
                    if not bpp:
                        print("# skipped %s loop at 0x%x: bytes per pass unknown"
                              % (sd["label"], h), file=sys.stderr)
                        continue
                    calls = [l for l in asm if l.startswith(("bl ", "blr ", "ret"))]
                    if calls:
                        print("# warning: a pass of 0x%x calls out (%s): llvm-mca gives"
                              " calls 100 cycles" % (h, calls[0]), file=sys.stderr)
                    with open(os.path.join(a.work, "%s-%s-%x.s" % (kind, sd["label"], h)),
                              "w") as f:
                        f.write("\n".join(asm) + "\n")
                    cyc = {}
                    for c in models:
                        v = mca_cycles("\n".join(asm) + "\n", c, sd["vl"])
                        cyc[c] = None if v is None else v / bpp
                    rows.append((kind, sd["label"],
                                 describe(k, img_name, img, h, asm, bpp, sve),
                                 bpp, len(asm), cyc, length,
                                 min(1.0, n_full * bpp / length)))
    os.environ.clear()
    os.environ.update(saved)
    return rows, models, [sd["label"] for sd in sides]


def fmt(v, w=11, p=2):
    return "%*s" % (w, "-") if v is None else "%*.*f" % (w, p, v)


if __name__ == "__main__":
    rows, models, labels = main(sys.argv[1:])
    w = max([len(r[2]) + len(r[1]) + 3 for r in rows] + [20])
    print("%-*s %7s %7s %8s %5s" % (w, "# loop (steady-state pass)", "B/pass", "insn/B",
                                     "seen at", "share")
          + "".join(" %11s" % m for m in models))
    last = None
    kinds = {"chacha": "ChaCha20", "poly": "Poly1305", "aead": "ChaCha20-Poly1305 (encrypt)"}
    for kind in ("chacha", "poly", "aead"):
        for r in rows:
            if r[0] != kind:
                continue
            if kind != last:
                print("## %s" % kinds[kind])
                last = kind
            _, side, desc, bpp, n, cyc, length, share = r
            print("%-*s %7d %7.2f %8d %5.2f" % (w, "[%s] %s" % (side, desc), bpp, n / bpp,
                                                 length, share)
                  + "".join(fmt(cyc[m]) for m in models))
    # ratios at the longest length of each kind, steady state: per side, the
    # loop covering most bytes of each primitive (a stitched AEAD loop stands
    # for both; else its ChaCha20 + Poly1305 loops)
    print()
    print("# cycles/byte of the steady-state loops at the longest length (per side the"
          " loop covering most bytes; AEAD: a stitched loop, or ChaCha20 + Poly1305);"
          " ours = best of our sides (SVE at the model's vector length),"
          " OpenSSL best = best of 3.0 and 3.5")
    print("%-8s %7s %-13s %-22s %7s %7s %7s %9s %9s %9s" % (
        "# kind", "bytes", "model", "ours (side)", "3.0", "3.5", "best",
        "ours/3.0", "ours/3.5", "ours/best"))
    for kind in ("chacha", "poly", "aead"):
        ks = [r for r in rows if r[0] == kind]
        if not ks:
            continue
        top_len = max(r[6] for r in ks)
        pick, weight = {}, {}
        func = lambda r: (re.findall(r"\[(\w+)\]$", r[2]) or [None])[0]
        for side in labels:
            comp = {}
            for r in ks:
                if r[1] != side or r[6] != top_len:
                    continue
                c = "aead" if "stitched" in r[2] else "poly" if "Poly1305" in r[2] else "chacha"
                # a Poly1305 loop inside a stitched pass's function is part of it
                if c == "poly" and any(func(x) == func(r) for x in ks
                                       if x[1] == side and "stitched" in x[2]):
                    continue
                if c not in comp or r[7] > comp[c][7]:
                    comp[c] = r
            if not comp:
                continue
            # a stitched loop stands for both primitives, but for the MAC's
            # share of a Poly1305 loop of its own that takes a quarter of
            # the bytes or more (a split MAC, neon_wide_split-fused),
            # weighted by that share; not the blocks after a fully stitched
            # kernel's passes (a tail: 2-5% at 16 KiB, as OpenSSL's tails)
            if "poly" in comp and comp["poly"][7] < 0.25:
                del comp["poly"]
            if "aead" in comp:
                pick[side] = [comp["aead"]] + ([comp["poly"]] if "poly" in comp else [])
                if "poly" in comp:
                    weight[(side, id(comp["poly"]))] = comp["poly"][7]
            else:
                pick[side] = list(comp.values())
        for m in models:
            val = {}
            for side, rs in pick.items():
                vs = [None if r[5][m] is None else r[5][m] * weight.get((side, id(r)), 1.0)
                      for r in rs]
                if kind == "aead" and len(rs) == 1 and "stitched" not in rs[0][2]:
                    continue        # half of a two-loop AEAD
                val[side] = None if any(v is None for v in vs) else sum(vs)
            ours = [(v, s) for s, v in val.items() if s.startswith("ours") and v is not None]
            o30 = [v for s, v in val.items() if s.startswith("openssl-3.0") and v is not None]
            o35 = [v for s, v in val.items() if s.startswith("openssl-3.5") and v is not None]
            if not ours or not (o30 or o35):
                continue
            ov, os_ = min(ours)
            t30 = min(o30) if o30 else None
            t35 = min(o35) if o35 else None
            best = min(v for v in (t30, t35) if v is not None)
            print("%-8s %7d %-13s %-22s %s %s %s %s %s %s" % (
                kind, top_len, m, "%.2f (%s)" % (ov, os_), fmt(t30, 7), fmt(t35, 7),
                fmt(best, 7), fmt(ov / t30 if t30 else None, 9, 3),
                fmt(ov / t35 if t35 else None, 9, 3), fmt(ov / best, 9, 3)))
