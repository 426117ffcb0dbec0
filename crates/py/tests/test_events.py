"""skeinhw.events: the architectural events of a golden run (the list `skeinhw diff --align
event` matches). They are computed by the diff crate from each block's key, tweak and output
with Threefish; here they are checked against what the cycle simulator's registers hold at
the matching cycles, and the digest events against pyskein 1.0. Shabal's (A, B, C after each
round, the digest) against the known answers and the reference's intermediate states."""

import pytest

import skeinhw

skein = pytest.importorskip("skein", reason="pyskein 1.0 is the oracle")

MESSAGES = [b"abc", bytes(range(200))]
KEY = b"a MAC key"


def words_of(record, register, n):
    return tuple(record[f"slot0_{register}_{w}"] for w in range(n))


def by_message(records, streams):
    """Each valid record of slot 0 with its message's index: more messages than streams run
    back to back (message i on stream i mod `streams`), and a stream's next message starts
    again at block 0."""
    begun, last = {}, {}
    for r in records:
        if not r["slot0_valid"]:
            continue
        s, b = r["slot0_stream"], r["slot0_block"]
        if b == 0 and last.get(s) != 0:
            begun[s] = begun.get(s, 0) + 1
        last[s] = b
        yield (begun[s] - 1) * streams + s, r


def test_after_subkey_events_are_the_state_register_at_their_cycle():
    # ath-1r does one round a cycle: the state register holds the state after subkey s on the
    # cycle the slot reports round 4s (it shows the state entering that round). It has one
    # stream: the two messages run back to back on it.
    events = skeinhw.events("ath-1r", MESSAGES, key=KEY)
    by = {}
    for m, r in by_message(skeinhw.simulate("ath-1r", MESSAGES, key=KEY), 1):
        by.setdefault((m, r["slot0_block"], r["slot0_round"]), r)
    checked = 0
    for e in events:
        if e.kind == "after_subkey" and e.subkey < 18:
            r = by[(e.message, e.block, 4 * e.subkey)]
            assert words_of(r, "state", 8) == e.words, e
            checked += 1
        if e.kind == "key":
            r = by[(e.message, e.block, 0)]
            assert words_of(r, "key", 9) == e.words, e
            checked += 1
        if e.kind == "tweak":
            r = by[(e.message, e.block, 0)]
            assert words_of(r, "tweak", 3) == e.words, e
            checked += 1
    # Per block 18 states, the key and the tweak; both messages have key, config, message
    # and output blocks.
    blocks = {(e.message, e.block) for e in events}
    assert checked == 20 * len(blocks) and len(blocks) >= 8
    assert {e.stream for e in events} == {0}


@pytest.mark.parametrize("name, size", [("ath-1r", 512), ("long-overlap-256", 256)])
def test_digest_events_are_the_hash(name, size):
    events = skeinhw.events(name, MESSAGES, key=KEY)
    digests = [e for e in events if e.kind == "digest"]
    assert [d.message for d in digests] == [0, 1]
    for d in digests:
        got = b"".join(w.to_bytes(8, "little") for w in d.words)
        want = getattr(skein, f"skein{size}")(MESSAGES[d.message], key=KEY).digest()
        assert got == want
        assert (d.type, d.register, d.subkey) == ("output", "out_data", None)


@pytest.mark.parametrize("name, streams", [("ath-1r", 1), ("ath-8r-2fp", 2)])
def test_more_messages_than_streams_are_queued_as_the_live_diff_takes_them(name, streams):
    # Message i on stream i mod S, a stream's messages back to back: the numbering of LiveDiff
    # and the cocotb checker, in events() and simulate() alike (issue 33).
    msgs = [b"abc", bytes(range(200)), b"", b"\x01" * 64, b"xyz"]
    events = skeinhw.events(name, msgs)
    digests = [e for e in events if e.kind == "digest"]
    assert sorted(d.message for d in digests) == list(range(5))
    for d in digests:
        assert d.stream == d.message % streams
        got = b"".join(w.to_bytes(8, "little") for w in d.words)
        assert got == skein.skein512(msgs[d.message]).digest(), d
    # A stream's Output blocks are counted across its messages.
    outputs = [(d.stream, d.index) for d in digests]
    for s in range(streams):
        assert [i for t, i in outputs if t == s] == list(range(len(msgs[s::streams])))
    records = list(skeinhw.simulate(name, msgs))
    assert {r["slot0_stream"] for r in records if r["slot0_valid"]} == set(range(streams))
    assert len(records) == skeinhw.LiveDiff(name, msgs, align="event").golden_cycles
    # Each message's events are those of it alone (a queued message's first blocks are no
    # repeat of the one before it on its stream).
    for i, m in enumerate(msgs):
        alone = [(e.kind, e.words) for e in skeinhw.events(name, [m])]
        assert [(e.kind, e.words) for e in events if e.message == i] == alone, i


def test_order_and_counts_per_block():
    events = skeinhw.events("ath-1r", [b"abc"])
    blocks = {}
    for e in events:
        blocks.setdefault((e.stream, e.block), []).append(e)
    # Config, one message block, one output block (no key).
    assert [(bs[0].type, bs[0].index) for bs in blocks.values()] == [
        ("config", 0), ("message", 0), ("output", 0)]
    for bs in blocks.values():
        kinds = [(e.kind, e.subkey) for e in bs if e.kind != "digest"]
        # Fixed rings: the key and tweak once; 19 subkeys before and after; the feed-forward.
        assert kinds[:2] == [("key", 0), ("tweak", 0)]
        assert kinds[2:4] == [("before_subkey", 0), ("after_subkey", 0)]
        assert kinds[-1] == ("feed_forward", None)
        assert len(kinds) == 2 + 2 * 19 + 1
    assert events[-1].kind == "digest"
    # The message block's input is the message, padded (before subkey 0).
    first = next(e for e in events if e.type == "message" and e.kind == "before_subkey")
    assert first.words[0] == int.from_bytes(b"abc", "little") and first.words[1:] == (0,) * 7


def test_rotating_rings_turn_by_one_word_per_subkey():
    fixed = skeinhw.events("long-iter-256", [b"abc"])
    turning = skeinhw.events("long-iter-256", [b"abc"], key_ring="rotating", tweak_ring="rotating")
    k0 = next(e for e in fixed if e.kind == "key" and e.type == "message").words
    t0 = next(e for e in fixed if e.kind == "tweak" and e.type == "message").words
    keys = [e for e in turning if e.kind == "key" and e.type == "message"]
    tweaks = [e for e in turning if e.kind == "tweak" and e.type == "message"]
    assert [e.subkey for e in keys] == list(range(19))
    for e in keys:
        assert e.words == tuple(k0[(e.subkey + i) % 5] for i in range(5))
    for e in tweaks:
        assert e.words == tuple(t0[(e.subkey + i) % 3] for i in range(3))


@pytest.mark.parametrize(
    "args, kwargs, exc, message",
    [
        (("ath-1r", [b"abc"]), {"key_ring": "spinning"}, ValueError, "key_ring"),
        (("nope", [b"abc"]), {}, ValueError, "nope"),
        (("ath-1r", "abc"), {}, TypeError, "str"),
        (("ath-1r", [b"abc"]), {"bits": 25}, ValueError, "only 24 given"),
    ],
)
def test_errors(args, kwargs, exc, message):
    with pytest.raises(exc) as e:
        skeinhw.events(*args, **kwargs)
    assert message in str(e.value) and "\n" not in str(e.value)


# Shabal: the events of ShabalExpected (A, B, C after each message block's round and after the
# three final rounds, then the digest), checked against the known answers (vectors/shabal).

SHABAL = "shabal-unfold-4"  # Shabal-512, as every Shabal preset (the paper's Table I)


def shabal_kat(vectors, out_bits):
    """(message, digest) of kat.txt's whole-byte entries for `out_bits`."""
    out = []
    for line in (vectors / "shabal" / "kat.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        bits, msg_bits, msg, digest, _source = line.split()
        if int(bits) == out_bits:
            msg = bytes.fromhex(msg)[: int(msg_bits) // 8]
            out.append((msg, bytes.fromhex(digest)))
    return out


def reference_state(vectors, section, block, step):
    """A, B, C (tuples of ints) of the SAPHIR reference's printout (intermediate.txt) after
    `step` of block `block` of `section` (its first such step)."""
    lines = (vectors / "shabal" / "intermediate.txt").read_text().splitlines()
    start = lines.index(f"Intermediate States for {section}")
    at = lines.index(f"block number = {block} : {step}", start)
    regs, current = {}, None
    for line in lines[at + 1 :]:
        if line.startswith("block number"):
            break
        head, _, rest = line.partition(":")
        if head.strip() in ("A", "B", "C", "W", "M"):
            current = head.strip()
            regs[current] = rest.split()
        elif current and line.strip():
            regs[current] += line.split()
    return tuple(tuple(int(w, 16) for w in regs[r]) for r in "ABC")


def le_bytes(words):
    return b"".join(w.to_bytes(4, "little") for w in words)


def shabal(out_bits):
    """The Shabal preset computing Shabal-`out_bits`."""
    s = skeinhw.Schedule.preset(SHABAL)
    return s if out_bits == 512 else s.replace(output_bits=out_bits, name=f"shabal-{out_bits}")


@pytest.mark.parametrize("out_bits", [192, 224, 256, 384, 512])
def test_shabal_digest_events_are_the_known_answers(vectors, out_bits):
    kat = shabal_kat(vectors, out_bits)
    assert len(kat) >= (1 if out_bits == 192 else 10)
    messages = [m for m, _ in kat]
    events = skeinhw.events(shabal(out_bits), messages)
    digests = [e for e in events if e.kind == "digest"]
    assert [d.stream for d in digests] == list(range(len(kat)))
    for d in digests:
        assert le_bytes(d.words) == kat[d.stream][1], d
        assert (d.type, d.index, d.register, d.subkey) == ("final", 2, "out", None)


@pytest.mark.parametrize("out_bits", [256, 512])
def test_shabal_events_per_stream_and_the_last_final_round(out_bits):
    # 3 bytes: one padded block; 102 bytes ("message B" of the specification): two.
    messages = [b"abc", b"x" * 102]
    events = skeinhw.events(shabal(out_bits), messages)
    for stream, blocks in enumerate([1, 2]):
        evs = [e for e in events if e.stream == stream]
        passes = [("message", i) for i in range(blocks)] + [("final", i) for i in range(3)]
        kinds = {"message": "after_round", "final": "final_round"}
        want = [(kinds[t], t, i, j, reg) for j, (t, i) in enumerate(passes) for reg in "abc"]
        assert [(e.kind, e.type, e.index, e.block, e.register) for e in evs[:-1]] == want
        for e in evs[:-1]:
            assert len(e.words) == {"a": 12, "b": 16, "c": 16}[e.register]
            assert all(0 <= w < 1 << 32 for w in e.words) and e.subkey is None
        # The digest is the last out_bits / 32 words of C after final round 2 (the
        # specification's output; Shabal-512: all of C).
        last_c, digest = evs[-2], evs[-1]
        assert (last_c.type, last_c.index, last_c.register) == ("final", 2, "c")
        assert digest.kind == "digest" and len(digest.words) == out_bits // 32
        assert digest.words == last_c.words[16 - out_bits // 32 :]
        assert digest.block == last_c.block


def test_shabal_message_round_events_are_the_reference_states(vectors):
    # Message A of the specification's appendix (64 zero bytes: the block, then the padding
    # block); the reference numbers the two prefix blocks -1 and 0, so message block 0 is its
    # block 1. After the round = after its swap of B and C (the counter is not an event). The
    # last block's is not compared: the reference folds the M subtraction/addition of the final
    # rounds into it, so its B differs there (vectors/shabal/README.md).
    events = skeinhw.events(SHABAL, [bytes(64)])
    got = {(e.type, e.index, e.register): e.words for e in events}
    a, b, c = reference_state(vectors, "Shabal-512 (Message A)", 1, "swap B with C")
    assert got[("message", 0, "a")] == a
    assert got[("message", 0, "b")] == b
    assert got[("message", 0, "c")] == c


@pytest.mark.parametrize(
    "kwargs, option",
    [
        ({"key": b"k"}, "key"),
        ({"pers": b"p"}, "pers"),
        ({"nonce": b"n"}, "nonce"),
        ({"tree": (1, 1, 2)}, "tree"),
        ({"key_ring": "rotating"}, "key_ring"),
        ({"tweak_ring": "rotating"}, "tweak_ring"),
        ({"digest_bits": 256}, "digest_bits"),
    ],
)
def test_shabal_refuses_skein_options(kwargs, option):
    with pytest.raises(ValueError) as e:
        skeinhw.events(SHABAL, [b"abc"], **kwargs)
    text = str(e.value)
    assert option in text and "Shabal" in text and "\n" not in text
