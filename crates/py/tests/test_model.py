"""The golden model through Python: schedules, the lazy simulator, the generator."""

import pytest

import skeinhw

skein = pytest.importorskip("skein", reason="pyskein 1.0 is the oracle")


def test_presets_and_schedule():
    names = skeinhw.presets()
    for n in ("ath-1r", "ath-8r-2fp", "long-overlap-256", "shabal-unfold-4"):
        assert n in names
    s = skeinhw.Schedule.preset("ath-1r")
    assert (s.name, s.algorithm, s.size, s.blocks_in_flight) == ("ath-1r", "skein", 512, 1)
    assert skeinhw.Schedule.from_json(s.to_json()) == s
    assert [p.name for p in skeinhw.Schedule.presets()] == names
    sh = skeinhw.Schedule.preset("shabal-unfold-4")
    # Table I of the Shabal hardware paper: 48 / f cycles per block.
    assert (sh.algorithm, sh.cycles_per_block) == ("shabal", 12)


def test_replace():
    s = skeinhw.Schedule.preset("ath-1r")
    r = s.replace(name="mine")
    assert r.name == "mine" and r.cycles_per_block == s.cycles_per_block
    with pytest.raises(ValueError) as e:
        s.replace(size=100)
    assert "size" in str(e.value) and "\n" not in str(e.value)
    with pytest.raises(ValueError):
        s.replace(no_such_field=1)


def digest_of(records, words, word_bytes=8):
    """The first digest block the golden model puts on out_data_* (out_valid set)."""
    for r in records:
        if r["out_valid"]:
            return b"".join(r[f"out_data_{w}"].to_bytes(word_bytes, "little") for w in range(words))
    raise AssertionError("no output")


@pytest.mark.parametrize("name", ["ath-1r", "ath-8r-2fp", "long-overlap-256"])
def test_simulate_digest_matches_pyskein(name):
    s = skeinhw.Schedule.preset(name)
    msg = bytes(range(200))
    words = s.size // 64
    got = digest_of(skeinhw.simulate(s, [msg]), words)
    assert got == getattr(skein, f"skein{s.size}")(msg).digest()
    mac = digest_of(skeinhw.simulate(s, [msg], key=b"secret key"), words)
    assert mac == getattr(skein, f"skein{s.size}")(msg, key=b"secret key").digest()
    part = digest_of(skeinhw.simulate(s, [msg], bits=[13]), words)
    h = getattr(skein, f"skein{s.size}")()
    h.update(msg, 13)
    assert part == h.digest()


def test_simulate_shabal_against_kat(vectors):
    line = next(
        l for l in (vectors / "shabal" / "kat.txt").read_text().splitlines()
        if l.startswith("512 816 ")
    )
    _, bits, msg, digest, _ = line.split()
    s = skeinhw.Schedule.preset("shabal-unfold-4")
    records = list(skeinhw.simulate(s, [bytes.fromhex(msg)]))
    assert digest_of(records, 16, 4).hex() == digest


def test_records():
    sim = skeinhw.simulate("ath-1r", [b"abc"])
    first = next(sim)
    assert first.cycle == 1
    fields = first.fields()
    assert "slot0_state_3" in fields and first["slot0_state_3"] == fields["slot0_state_3"]
    assert first.keys() == list(fields)
    with pytest.raises(KeyError):
        first["nope"]
    # Skein 1.3 with Athanasiou's 1-round core: Config, Message, Output blocks of 73 cycles.
    assert 1 + sum(1 for _ in sim) == 3 * 73


def test_records_carry_in_ready():
    # ath-8r-2fp has two streams; one message feeds stream 0 only. By the feed rule, stream 0's
    # one message block is in its input register from before cycle 1 until the edge that
    # issues it (its first cycle in a slot, as a message block); stream 1's register stays free.
    records = list(skeinhw.simulate("ath-8r-2fp", [b"abc"]))
    assert "in_ready_0" in records[0] and "in_ready_1" in records[0]
    assert "in_ready_2" not in records[0]
    assert all(r["in_ready_1"] == 1 for r in records)
    issued = next(
        r.cycle
        for r in records
        if any(r[f"slot{i}_valid"] and r[f"slot{i}_phase"] == 3 for i in range(2))
    )
    assert [r["in_ready_0"] for r in records] == [
        int(r.cycle >= issued) for r in records
    ]


def test_record_field_lookup():
    sim = skeinhw.simulate("ath-1r", [b"abc"])
    first = next(sim)
    names = sim.field_names
    assert first.keys() == names and len(set(names)) == len(names)
    # Every name reads its own column of fields(), whatever string object spells it.
    fields = first.fields()
    for name in names:
        spelled = "".join(list(name))  # an equal but distinct str object
        assert first[spelled] == first[name] == fields[name]
        assert spelled in first
    # Cycle 1 is the Config block after its first subkey (zero key, tweak in words 5 and 6):
    # word 0 is the schema "SHA3" and version 1, word 1 the output length (Skein 1.3, 3.5.2).
    assert first["slot0_state_0"] == 0x0000_0001_3341_4853
    assert first["slot0_state_1"] == 512
    assert first["slot0_tweak_0"] == 32 and first["slot0_state_5"] == 32
    with pytest.raises(KeyError, match="no field 'slot9_state_0' in the trace"):
        first["slot9_state_0"]
    with pytest.raises(TypeError, match=r"a field name \(str\) is required, not 'int'"):
        first[0]
    assert "nope" not in first and 0 not in first


def test_simulate_is_lazy():
    # 4 MiB on ath-1r is ~4.8 million cycles; reading a few must not run (or keep) them all.
    sim = skeinhw.simulate("ath-1r", [bytes(4 << 20)])
    cycles = [next(sim).cycle for _ in range(1000)]
    assert cycles == list(range(1, 1001))
    del sim


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (dict(schedule="ath-1r", messages=[b"ab"], bits=[17]), ValueError, "17 message bits requested but only 16 given"),
        (dict(schedule="ath-1r", messages=["ab"]), TypeError, "not 'str'"),
        (dict(schedule="nope", messages=[b"ab"]), ValueError, "nope"),
        (dict(schedule=3, messages=[b"ab"]), TypeError, "schedule"),
        (dict(schedule="ath-1r", messages=[]), ValueError, "at least one message"),
        (dict(schedule="ath-1r", messages=[b""], digest_bits=0), ValueError, "at least 1 bit"),
        (dict(schedule="shabal-unfold-4", messages=[b""], key=b"k"), ValueError, "Shabal has no key"),
    ],
)
def test_simulate_errors(kwargs, exc, message):
    with pytest.raises(exc) as e:
        skeinhw.simulate(**kwargs)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_generate_verilog_keeps_files(tmp_path):
    paths = skeinhw.generate_verilog("ath-1r", tmp_path / "rtl")
    assert {p.name for p in paths} == {"skeinhw.v", "skeinhw_tb.v", "signal_map.json", "schedule.json", "core.json"}
    assert "module skeinhw (" in (tmp_path / "rtl" / "skeinhw.v").read_text()
    (tmp_path / "rtl" / "skeinhw.v").write_text("mine")
    with pytest.raises(ValueError, match="exists"):
        skeinhw.generate_verilog("ath-1r", tmp_path / "rtl")
    assert (tmp_path / "rtl" / "skeinhw.v").read_text() == "mine"
    skeinhw.generate_verilog("ath-1r", tmp_path / "rtl", force=True)
    assert "module skeinhw (" in (tmp_path / "rtl" / "skeinhw.v").read_text()


def test_live_diff_refuses_empty_or_unknown_maps():
    with pytest.raises(ValueError, match="no fields"):
        skeinhw.LiveDiff("ath-1r", [b"abc"], map='{"fields": {}}')
    with pytest.raises(ValueError, match="not_a_field"):
        skeinhw.LiveDiff("ath-1r", [b"abc"], map='{"fields": {"not_a_field": "x"}}')
    d = skeinhw.LiveDiff("ath-1r", [b"abc"])
    with pytest.raises(ValueError, match="nothing compared"):
        d.finish()


def test_records_kept_across_batches_keep_their_values():
    # Records are views into batches of cycles; ones kept past many batches must still read
    # their own cycle (checked against the records' cycles and a second, separate run).
    msg = bytes(range(256)) * 40
    kept = list(skeinhw.simulate("ath-8r-2fp", [msg]))
    assert [r.cycle for r in kept] == list(range(1, len(kept) + 1))
    assert len(kept) > 3000
    again = skeinhw.simulate("ath-8r-2fp", [msg])
    for r in again:
        k = kept[r.cycle - 1]
        if r.cycle % 97 == 0 or r.cycle == len(kept):
            assert k.fields() == r.fields() and k.phase == r.phase


def test_records_kept_while_read_batches_are_recycled():
    # Batches nobody holds any more go back to the simulator to be refilled; a batch with a
    # kept record must not. Keep a few records while streaming (the batches between them are
    # recycled) and compare them with a run kept whole (nothing recycled).
    msg = bytes(range(256)) * 160
    whole = list(skeinhw.simulate("ath-1r", [msg]))
    assert len(whole) > 40 * 1000  # some 60 batches of about 760 cycles
    kept = [r for r in skeinhw.simulate("ath-1r", [msg]) if r.cycle % 5000 == 1]
    churn = sum(1 for _ in skeinhw.simulate("ath-1r", [msg]))  # another run's buffers
    assert churn == len(whole) and len(kept) == (len(whole) - 1) // 5000 + 1
    for k in kept:
        assert k.fields() == whole[k.cycle - 1].fields()


def test_two_threads_reading_one_simulation_share_its_cycles():
    import threading

    sim = skeinhw.simulate("ath-1r", [bytes(20000)])
    seen = [[], []]

    def read(i):
        for r in sim:
            seen[i].append(r.cycle)

    threads = [threading.Thread(target=read, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads)
    cycles = sorted(seen[0] + seen[1])
    assert cycles == list(range(1, len(cycles) + 1)) and len(cycles) > 20000


def test_live_diff_by_event_on_the_golden_values():
    # The golden model's own registers as the DUT: every event is found, in order; one state
    # word changed on the cycle of an event breaks it. (The events come from Threefish on each block's
    # key, tweak and output, not from the simulator's datapath.)
    msgs = [b"abc", bytes(100)]
    records = list(skeinhw.simulate("ath-1r", msgs, key=b"k"))
    # The cycle the state register shows the first block after subkey 2 (one round a cycle).
    event_cycle = next(r.cycle for r in records if r["slot0_valid"] and r["slot0_round"] == 8)
    for flip in (None, event_cycle):
        diff = skeinhw.LiveDiff("ath-1r", msgs, key=b"k", align="event")
        assert diff.align == "event" and diff.golden_cycles == len(records)
        labels = [p[0] for p in diff.probes]
        more = True
        for r in records:
            values = [r[f] ^ (1 if r.cycle == flip and f == "slot0_state_2" else 0) for f in labels]
            more = diff.step(r.cycle - 1, r.cycle * 10, values)
            if not more:
                break
        assert not more, "the digests end the run"
        verdict, text, compared, fields, golden = diff.finish()
        if flip is None:
            assert verdict == "identical", text
            assert "IDENTICAL (event alignment)" in text and "2 digest block(s)" in text
        else:
            assert verdict == "divergent", text
            assert "after subkey 2: never seen in slot0_state_*" in text, text


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(align="sideways"), "align"),
        (dict(align="event", map='{"fields": {"phase": "phase"}}'), "phase"),
        (dict(partial=True), "partial"),
    ],
)
def test_live_diff_argument_errors(kwargs, message):
    with pytest.raises(ValueError) as e:
        skeinhw.LiveDiff("ath-1r", [b"abc"], **kwargs)
    assert message in str(e.value) and "\n" not in str(e.value)
