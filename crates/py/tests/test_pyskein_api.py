"""The rest of pyskein 1.0's hash API against pyskein itself: digest(start, stop), outputs of up
to 2**64-1 bits, tree given as any sequence, bits completing a partial byte over several
updates, and the exception types of bad arguments. Where skeinhw is right and pyskein wrong
(crates/py/README.md, "Differences from pyskein"), the test says which is which."""

import random

import pytest

import skeinhw

pyskein = pytest.importorskip("skein", reason="pyskein 1.0 is the oracle")

SIZES = (256, 512, 1024)


def both(state, *args, **kwargs):
    return (getattr(skeinhw, f"skein{state}")(*args, **kwargs),
            getattr(pyskein, f"skein{state}")(*args, **kwargs))


def test_digest_slices_against_pyskein():
    rng = random.Random(33)
    for case in range(300):
        state = rng.choice(SIZES)
        kwargs = {"digest_bits": rng.choice([1, 7, 8, 9, state - 1, state, state + 3, rng.randrange(1, 9000)])}
        if rng.random() < 0.3:
            kwargs["tree"] = (rng.randrange(1, 3), rng.randrange(1, 3), rng.randrange(2, 5))
        ours, theirs = both(state, rng.randbytes(rng.randrange(0, 700)), **kwargs)
        size = ours.digest_size
        assert size == theirs.digest_size
        start = rng.randrange(0, size + 1)
        stop = rng.randrange(start, size + 1)
        assert ours.digest(start, stop) == theirs.digest(start, stop), (case, kwargs, start, stop)
        assert ours.digest(start, stop) == ours.digest()[start:stop]
        assert ours.digest(0, size) == ours.digest() == theirs.digest()


def test_slices_of_the_longest_output():
    # 2**64-1 bits: pyskein's StreamCipher length. Its output counter is 32 bits wide, so up to
    # block 2**32 - 1 the two agree.
    top = (2**32 - 1) * 64
    for key in (b"", b"k" * 70):
        ours, theirs = both(512, b"long", digest_bits=2**64 - 1, key=key)
        assert ours.digest_size == theirs.digest_size == 2**61
        for start in (0, 1, 63, 64, 10**9 + 7, 2**33 + 5, top - 100, top):
            assert ours.digest(start, start + 64) == theirs.digest(start, start + 64), start
        last = ours.digest(2**61 - 1, 2**61)
        assert len(last) == 1 and last[0] & 1 == 0  # 7 bits of the last byte


def test_the_output_counter_has_64_bits():
    # Skein 1.3, 3.5.3: block i of the output is UBI(G, ToBytes(i, 8), Tout). pyskein 1.0
    # writes 4 bytes of i: its block 2**32 repeats block 0; ours does not.
    ours, theirs = both(512, b"counter", digest_bits=2**64 - 1)
    wrap = 2**32 * 64
    assert theirs.digest(wrap, wrap + 64) == theirs.digest(0, 64)
    assert ours.digest(wrap, wrap + 64) != ours.digest(0, 64)
    assert ours.digest(wrap - 64, wrap) == theirs.digest(wrap - 64, wrap)


def test_long_outputs_do_not_materialize():
    h = skeinhw.skein1024(b"x", digest_bits=2**40)
    assert h.digest_bits == 2**40 and h.digest_size == 2**37
    assert len(h.digest(2**37 - 5, 2**37)) == 5
    with pytest.raises(MemoryError):
        h.digest()
    with pytest.raises(MemoryError):
        h.hexdigest()
    with pytest.raises(MemoryError):
        pyskein.skein1024(b"x", digest_bits=2**40).digest()


def test_slices_follow_updates():
    ours, theirs = both(256, digest_bits=4000)
    for chunk in (b"a", b"bc" * 40, b"", b"d" * 300):
        ours.update(chunk)
        theirs.update(chunk)
        assert ours.digest(17, 400) == theirs.digest(17, 400)
        c = ours.copy()
        c.update(b"more")
        assert ours.digest(17, 400) == theirs.digest(17, 400)


@pytest.mark.parametrize("make", [
    lambda: [1, 1, 2], lambda: (2, 1, 3), lambda: iter([1, 2, 255]), lambda: range(1, 4),
    lambda: (True, 1, 2)])
def test_tree_as_any_sequence(make):
    msg = bytes(range(256)) * 9
    ours = skeinhw.skein512(msg, tree=make())
    assert ours.digest() == pyskein.skein512(msg, tree=make()).digest()
    assert ours.digest() == skeinhw.skein512(msg, tree=tuple(make())).digest()
    assert ours.digest() != skeinhw.skein512(msg).digest()


def test_bits_complete_a_partial_byte():
    rng = random.Random(5)
    for case in range(400):
        state = rng.choice(SIZES)
        init = rng.randbytes(rng.randrange(0, 100))
        ours, theirs = both(state, init)
        total = 8 * len(init)
        for _ in range(rng.randrange(1, 12)):
            missing = (8 - total % 8) % 8
            if missing:
                bits = rng.randrange(0, missing + 1)
                data = rng.randbytes(rng.randrange(1, 3))
            else:
                data = rng.randbytes(rng.randrange(0, 90))
                bits = rng.choice([None, rng.randrange(0, 8 * len(data) + 1)]) if data else None
            args = (data,) if bits is None else (data, bits)
            ours.update(*args)
            theirs.update(*args)
            total += 8 * len(data) if bits is None else bits
            assert ours.digest() == theirs.digest(), case
            assert ours.hashed_bits == total


def test_whole_bytes_after_a_completed_byte():
    ours, theirs = both(512)
    for h in (ours, theirs):
        h.update(b"\xf0", 4)
        h.update(b"\x50", 3)
        h.update(b"\x80", 1)  # the byte is 0xf5 now
        h.update(b"tail")
    assert ours.digest() == theirs.digest() == skeinhw.skein512(b"\xf5tail").digest()


def test_hashed_bits_counts_the_message():
    # pyskein 1.0 adds only the bytes its update leaves in the buffer, and the key's: here
    # 576 for an 800-bit message.
    ours, theirs = both(512, b"x" * 100, key=b"k" * 100)
    assert theirs.hashed_bits == 576
    assert ours.hashed_bits == 800
    ours.update(b"\xff", 3)
    assert ours.hashed_bits == 803


def test_copy_at_odd_output_lengths():
    # pyskein 1.0's copy() goes through its pickle state, which refuses digest_bits % 8 != 0.
    ours, theirs = both(256, b"abc", digest_bits=12)
    with pytest.raises(RuntimeError):
        theirs.copy()
    c = ours.copy()
    c.update(b"d")
    assert c.digest() == pyskein.skein256(b"abcd", digest_bits=12).digest()
    assert ours.digest() == theirs.digest()


def test_threefish_tweak_assignment():
    # pyskein 1.0's tweak setter writes t0 and t1 but not t2 = t0 ^ t1: after an assignment
    # it encrypts with a stale tweak. Ours equals a fresh object with that tweak.
    key, block, tweak = bytes(range(64)), bytes(64), bytes(range(16, 32))
    fresh = pyskein.threefish(key, tweak).encrypt_block(block)
    ours, theirs = skeinhw.threefish(key, bytes(16)), pyskein.threefish(key, bytes(16))
    ours.tweak = tweak
    theirs.tweak = tweak
    assert ours.encrypt_block(block) == fresh
    assert theirs.encrypt_block(block) != fresh
    assert ours.tweak == theirs.tweak == tweak


def keywords(**kw):
    return kw


BAD_CALLS = [
    ("skein512", (b"", 8, b"key"), {}),
    ("skein512", (), keywords(digest_bits=0)),
    ("skein512", (), keywords(digest_bits=-1)),
    ("skein512", (), keywords(digest_bits=2**64)),
    ("skein512", (), keywords(digest_bits="8")),
    ("skein512", (), keywords(digest_bits=8.0)),
    ("skein512", ("text",), {}),
    ("skein512", (), keywords(key="text")),
    ("skein512", (), keywords(tree=(1, 1))),
    ("skein512", (), keywords(tree=5)),
    ("skein512", (), keywords(tree="abc")),
    ("skein512", (), keywords(tree=(1.0, 1, 2))),
    ("skein512", (), keywords(tree=(0, 1, 2))),
    ("skein512", (), keywords(tree=(1, 0, 2))),
    ("skein512", (), keywords(tree=(1, 1, 1))),
    ("skein512", (), keywords(tree=(1, 1, 256))),
    ("skein512", (), keywords(tree=(2**70, 1, 2))),
    ("skein512", (), keywords(tree=(-1, 1, 2))),
    ("threefish", (bytes(63), bytes(16)), {}),
    ("threefish", (bytes(64), bytes(15)), {}),
    ("threefish", ("x" * 64, bytes(16)), {}),
]


@pytest.mark.parametrize("name, args, kwargs", BAD_CALLS)
def test_bad_constructor_arguments_raise_as_pyskein(name, args, kwargs):
    with pytest.raises(Exception) as theirs:
        getattr(pyskein, name)(*args, **kwargs)
    with pytest.raises(Exception) as ours:
        getattr(skeinhw, name)(*args, **kwargs)
    assert ours.type is theirs.type, (ours.value, theirs.value)
    assert "\n" not in str(ours.value)


BAD_METHODS = [
    ("digest", (1,), {}),
    ("digest", (0, 1, 2), {}),
    ("digest", (), keywords(start=0, stop=1)),
    ("digest", (-1, 2), {}),
    ("digest", (3, 2), {}),
    ("digest", (0, 65), {}),
    ("digest", (1.0, 2), {}),
    ("digest", (0, "2"), {}),
    ("update", ("text",), {}),
    ("update", (b"ab", 17), {}),
    ("update", (b"ab", -2), {}),
    ("update", (b"ab", 2**63), {}),
    ("update", (b"ab", 2**64), {}),
    ("update", (b"ab", 1.0), {}),
    ("update", (b"ab", "1"), {}),
    ("update", (), keywords(data=b"ab")),
]


@pytest.mark.parametrize("method, args, kwargs", BAD_METHODS)
def test_bad_method_arguments_raise_as_pyskein(method, args, kwargs):
    with pytest.raises(Exception) as theirs:
        getattr(pyskein.skein512(), method)(*args, **kwargs)
    with pytest.raises(Exception) as ours:
        getattr(skeinhw.skein512(), method)(*args, **kwargs)
    assert ours.type is theirs.type, (ours.value, theirs.value)


def test_update_keyword_is_message():
    ours, theirs = both(512)
    ours.update(message=b"abc", bits=20)
    theirs.update(message=b"abc", bits=20)
    assert ours.digest() == theirs.digest()


@pytest.mark.parametrize("first, second", [(3, None), (3, 6), (5, 4), (1, 8)])
def test_too_many_bits_after_a_partial_byte(first, second):
    for module in (pyskein, skeinhw):
        h = module.skein512()
        h.update(b"\xff", first)
        with pytest.raises(ValueError):
            h.update(*((b"\xff\xff",) if second is None else (b"\xff\xff", second)))


def test_tweak_errors_as_pyskein():
    for module in (pyskein, skeinhw):
        t = module.threefish(bytes(32), bytes(16))
        with pytest.raises(ValueError):
            t.tweak = bytes(15)
        with pytest.raises(ValueError):
            t.encrypt_block(bytes(64))
        with pytest.raises(TypeError):
            t.decrypt_block("x" * 32)


def test_tree_parameters_beyond_56():
    # The configuration bytes allow 1..255 (Skein 1.3, 3.5.6); pyskein 1.0 stops at 56.
    msg = b"x" * 5000
    with pytest.raises(ValueError):
        pyskein.skein512(msg, tree=(57, 1, 2))
    wide = {skeinhw.skein512(msg, tree=t).digest() for t in ((56, 1, 2), (57, 1, 2), (255, 255, 255))}
    assert len(wide) == 3
    assert skeinhw.skein512(msg, tree=(56, 1, 2)).digest() == pyskein.skein512(msg, tree=(56, 1, 2)).digest()
