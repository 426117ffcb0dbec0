"""The live event checker (skeinhw.LiveDiff, align="event") on Shabal schedules: a design of
another unfolding, fed edge by edge, is IDENTICAL with the true counts; a wrong word is
DIVERGENT naming the message block, the event and the word; a byte-swapped register is read
back through the map's "byteswap". The messages and their digests are the Shabal KAT file's
(vectors/shabal/kat.txt), so the golden run is checked against the specification first."""

import json

import pytest

import skeinhw

# The RTL's schedule (4 iterations of P a cycle) and the golden model's (1): another latency.
RTL, GOLDEN = "shabal-unfold-4", "shabal-unfold-1"
WORDS = {"a": 12, "b": 16, "c": 16}


def kat_512(vectors):
    """The first Shabal-512 whole-byte KAT entry of 100 bytes or more: (message, digest)."""
    for line in (vectors / "shabal" / "kat.txt").read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        bits, msg_bits, msg, digest, _source = line.split()
        if int(bits) == 512 and int(msg_bits) % 8 == 0 and int(msg_bits) >= 800:
            return bytes.fromhex(msg)[: int(msg_bits) // 8], bytes.fromhex(digest)
    raise AssertionError("no such KAT entry")


@pytest.fixture(scope="module")
def case(vectors):
    msg, digest = kat_512(vectors)
    records = list(skeinhw.simulate(RTL, [msg]))
    out = next(r for r in records if r["out_valid"])
    got = b"".join(out[f"out_data_{w}"].to_bytes(4, "little") for w in range(16))
    assert got == digest, "the design's digest is the KAT's"
    return msg, records


def run(msg, records, change=lambda field, cycle, v: v, **kwargs):
    diff = skeinhw.LiveDiff(GOLDEN, [msg], align="event", **kwargs)
    assert diff.align == "event" and diff.golden_cycles > 0
    labels = [p[0] for p in diff.probes]
    more = True
    for r in records:
        values = [change(f, r.cycle, r[f]) for f in labels]
        more = diff.step(r.cycle - 1, r.cycle * 10, values)
        if not more:
            break
    assert not more, "the digest ends the run"
    return diff.finish()


def passes(msg):
    """Message blocks of `msg` (Shabal pads to 64-byte blocks, at least one byte of padding)."""
    return len(msg) // 64 + 1


def test_another_unfolding_is_identical_with_true_counts(case):
    msg, records = case
    verdict, text, compared, fields, _golden = run(msg, records)
    assert verdict == "identical", text
    n = 3 * (passes(msg) + 3)  # A, B, C after each message block and each final round
    assert f"IDENTICAL (event alignment): {n} of {n} expected events matched, 1 digest(s)" in text
    assert fields == 12 + 16 + 16 + 16 + 1 and compared > 0


def test_a_wrong_word_is_named_at_its_block_event_and_word(case):
    msg, records = case
    # From the cycle the design shows C after message block 1 on, c_5 is wrong in one bit.
    at = next(r.cycle for r in records if r["valid"] and r["block"] == 1 and r["iteration"] == 48)

    def change(field, cycle, v):
        return v ^ (1 << 17) if field == "c_5" and cycle >= at else v

    verdict, text, *_ = run(msg, records, change)
    assert verdict == "divergent", text
    assert "DIVERGENT (event alignment): stream 0, message block 1, after the round: never seen in c_*" in text, text
    lines = [line for line in text.splitlines() if "<-- differs" in line]
    assert len(lines) == 1 and lines[0].split()[0] == "c_5", text


def byteswapped_map(part):
    fields = {f"{p}_{i}": f"{p}_{i}" for p, n in WORDS.items() for i in range(n)}
    for i in range(WORDS[part]):
        fields[f"{part}_{i}"] = {"signal": f"{part}_{i}", "byteswap": True}
    fields.update({f"out_data_{w}": f"out_data_{w}" for w in range(16)})
    fields["out_valid"] = "out_valid"
    return json.dumps({"fields": fields})


def test_a_byte_swapped_register_is_read_back(case):
    msg, records = case

    def swap(field, cycle, v):
        return int.from_bytes(v.to_bytes(4, "little"), "big") if field.startswith("a_") else v

    verdict, text, *_ = run(msg, records, swap, map=byteswapped_map("a"))
    assert verdict == "identical", text
    # The same RTL without "byteswap" never shows A.
    verdict, text, *_ = run(msg, records, swap)
    assert verdict == "divergent" and "never seen in a_*" in text, text


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(map='{"fields": {"slot0_state_0": "x"}}'), "slot0_state_0"),
        (dict(map='{"fields": {"w": "w"}}'), "'w'"),
        (dict(map='{"fields": {"a_0": "a_0"}}'), "--partial"),
        (dict(key=b"k"), "key"),
    ],
)
def test_refusals_name_the_cause(kwargs, message):
    with pytest.raises(ValueError) as e:
        skeinhw.LiveDiff(GOLDEN, [b"abc"], align="event", **kwargs)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_nothing_compared_is_an_error():
    diff = skeinhw.LiveDiff(GOLDEN, [b"abc"], align="event")
    with pytest.raises(ValueError, match="nothing compared"):
        diff.finish()
