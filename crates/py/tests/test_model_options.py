"""Every Skein option through the golden model's binding: the blocks the generated core's port
takes (`host_blocks`), the core built for an output length and a tree (`generate_verilog`),
the live diff told the same options as the run it checks (`LiveDiff`), and schedule overrides
as the CLI's --set (`Schedule.with_set`)."""

import pytest

import skeinhw

OPTIONS = {
    "pers": {"pers": b"20081031 me@example.org"},
    "all_arguments": {"key": b"k" * 70, "pers": b"p", "public_key": b"q" * 65,
                      "key_id": b"id", "nonce": b"n" * 16},
    "out_bits_128": {"digest_bits": 128},
    "out_bits_1032": {"digest_bits": 1032},
    "tree": {"tree": (1, 1, 2)},
}
MSG = bytes(range(256)) + bytes(44)


def messages_of(blocks):
    """Per stream, the UBI types of each block in order."""
    out = {}
    for b in blocks:
        out.setdefault(b["stream"], []).append("key" if b["key"] else b["type"])
    return out


def test_host_blocks_send_the_arguments_in_type_order():
    blocks = skeinhw.host_blocks("ath-1r", [b"abc"], **OPTIONS["all_arguments"])
    # A 70-byte key is two Key blocks; then personalization (8), public key (12, two blocks),
    # key id (16), nonce (20) and the message (48): each a UBI call with first/last.
    assert messages_of(blocks) == {0: ["key", "key", 8, 12, 12, 16, 20, 48]}
    assert [b["first"] for b in blocks] == [1, 0, 1, 1, 0, 1, 1, 1]
    assert [b["last"] for b in blocks] == [0, 1, 1, 0, 1, 1, 1, 1]
    assert blocks[2]["bytes"] == 1 and blocks[2]["data"] == ord("p")
    assert all(b["level"] == 0 and b["src"] == 0 for b in blocks)


def test_host_blocks_queue_more_messages_than_streams():
    # ath-8r-2fp has two streams: message i on stream i mod 2, each stream's in order.
    msgs = [bytes([i]) * (10 + 70 * i) for i in range(5)]
    blocks = skeinhw.host_blocks("ath-8r-2fp", msgs)
    ends = [(b["stream"], b["bytes"]) for b in blocks if b["last"]]
    assert ends == [(0, 10), (0, 22), (0, 34), (1, 16), (1, 28)]
    assert [b["stream"] for b in blocks] == sorted(b["stream"] for b in blocks)


def test_host_blocks_of_a_tree():
    blocks = skeinhw.host_blocks("ath-1r", [MSG], tree=(1, 1, 2))
    assert {b["level"] for b in blocks} == {1, 2}
    assert sum(b["root"] for b in blocks) == 1
    nodes = [b for b in blocks if b["level"] == 2]
    # Each node block carries a child's result, named by number (the core returns it).
    assert [b["src"] for b in nodes] == list(range(1, len(nodes) + 1))


def test_host_blocks_refusals():
    with pytest.raises(ValueError, match="Shabal has no pers"):
        skeinhw.host_blocks("shabal-unfold-4", [b"abc"], pers=b"x")
    with pytest.raises(ValueError, match="tree"):
        skeinhw.host_blocks("ath-1r", [b"abc"], tree=(0, 1, 2))
    shabal = skeinhw.host_blocks("shabal-unfold-4", [b"abc", b"de"])
    assert [b["stream"] for b in shabal] == [0, 1]
    assert all(b["type"] == 0 for b in shabal)


def test_generate_verilog_builds_the_core_for_its_output_and_tree(tmp_path):
    plain = skeinhw.generate_verilog("ath-1r", tmp_path / "plain")[0].read_text()
    short = skeinhw.generate_verilog("ath-1r", tmp_path / "short", digest_bits=128)[0].read_text()
    tree = skeinhw.generate_verilog("ath-1r", tmp_path / "tree", tree=(1, 1, 2))[0].read_text()
    assert plain != short
    assert "in_level" in tree and "res_data" in tree and "in_level" not in plain
    with pytest.raises(ValueError, match="digest_bits must be 512"):
        skeinhw.generate_verilog("shabal-unfold-4", tmp_path / "s", digest_bits=128)
    with pytest.raises(ValueError, match="at least 1 bit"):
        skeinhw.generate_verilog("ath-1r", tmp_path / "z", digest_bits=0)


def diff_on(records, **options):
    """LiveDiff with `options` stepped over `records` as the DUT's values: the verdict."""
    diff = skeinhw.LiveDiff("ath-1r", [MSG], **options)
    labels = [p[0] for p in diff.probes]
    for r in records:
        if not diff.step(r.cycle - 1, r.cycle * 10, [r[f] for f in labels]):
            break
    verdict, text, *_ = diff.finish()
    return verdict, text


@pytest.mark.parametrize("case", sorted(OPTIONS))
def test_live_diff_is_told_every_option(case):
    options = OPTIONS[case]
    run = list(skeinhw.simulate("ath-1r", [MSG], **options))
    verdict, text = diff_on(run, **options)
    assert verdict == "identical", text
    # The DUT that ignores the option (a plain run) is never a pass.
    plain = list(skeinhw.simulate("ath-1r", [MSG]))
    verdict, text = diff_on(plain, **options)
    assert verdict != "identical", text


def test_live_diff_queues_more_messages_than_streams():
    # One stream, three messages back to back: longer than the first alone.
    one = sum(1 for _ in skeinhw.simulate("ath-1r", [MSG]))
    diff = skeinhw.LiveDiff("ath-1r", [MSG, b"abc", b""], align="event")
    assert diff.golden_cycles > one


def test_with_set():
    s = skeinhw.Schedule.preset("ath-1r")
    changed = s.with_set(["first_subkey_cycle=false", " rounds_per_cycle = 2 "])
    assert changed.name == "ath-1r+first_subkey_cycle=false,rounds_per_cycle=2"
    assert changed.cycles_per_block < s.cycles_per_block
    assert s.with_set([]) == s
    assert s.with_set(["name=mine", "first_subkey_cycle=false"]).name == "mine"
    with pytest.raises(ValueError, match="FIELD=VALUE"):
        s.with_set(["first_subkey_cycle"])
    with pytest.raises(ValueError, match="no_such_field"):
        s.with_set(["no_such_field=1"])
    shabal = skeinhw.Schedule.preset("shabal-unfold-4").with_set(["size=512"])
    assert shabal.size == 512
