"""skeinhw.events: the architectural events of a golden run (the list `skeinhw diff --align
event` matches). They are computed by the diff crate from each block's key, tweak and output
with Threefish; here they are checked against what the cycle simulator's registers hold at
the matching cycles, and the digest events against pyskein 1.0."""

import pytest

import skeinhw

skein = pytest.importorskip("skein", reason="pyskein 1.0 is the oracle")

MESSAGES = [b"abc", bytes(range(200))]
KEY = b"a MAC key"


def words_of(record, register, n):
    return tuple(record[f"slot0_{register}_{w}"] for w in range(n))


def test_after_subkey_events_are_the_state_register_at_their_cycle():
    # ath-1r does one round a cycle: the state register holds the state after subkey s on the
    # cycle the slot reports round 4s (it shows the state entering that round).
    events = skeinhw.events("ath-1r", MESSAGES, key=KEY)
    by = {}
    for r in skeinhw.simulate("ath-1r", MESSAGES, key=KEY):
        if r["slot0_valid"]:
            by.setdefault((r["slot0_stream"], r["slot0_block"], r["slot0_round"]), r)
    checked = 0
    for e in events:
        if e.kind == "after_subkey" and e.subkey < 18:
            r = by[(e.stream, e.block, 4 * e.subkey)]
            assert words_of(r, "state", 8) == e.words, e
            checked += 1
        if e.kind == "key":
            r = by[(e.stream, e.block, 0)]
            assert words_of(r, "key", 9) == e.words, e
            checked += 1
        if e.kind == "tweak":
            r = by[(e.stream, e.block, 0)]
            assert words_of(r, "tweak", 3) == e.words, e
            checked += 1
    # Per block 18 states, the key and the tweak; both streams have key, config, message
    # and output blocks.
    blocks = {(e.stream, e.block) for e in events}
    assert checked == 20 * len(blocks) and len(blocks) >= 8


@pytest.mark.parametrize("name, size", [("ath-1r", 512), ("long-overlap-256", 256)])
def test_digest_events_are_the_hash(name, size):
    events = skeinhw.events(name, MESSAGES, key=KEY)
    digests = [e for e in events if e.kind == "digest"]
    assert [d.stream for d in digests] == [0, 1]
    for d in digests:
        got = b"".join(w.to_bytes(8, "little") for w in d.words)
        want = getattr(skein, f"skein{size}")(MESSAGES[d.stream], key=KEY).digest()
        assert got == want
        assert (d.type, d.register, d.subkey) == ("output", "out_data", None)


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
        (("shabal-unfold-4", [b"abc"]), {}, ValueError, "Shabal"),
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
