"""pyskein 1.0's Python-level classes: ``Random``, ``RandomBytes`` and ``StreamCipher``.

They produce pyskein's streams byte for byte. The cryptography runs in the native module
(the Skein hashers, ``digest(start, stop)`` and the Threefish steps of ``_random_blocks``);
this module only keeps pyskein's seeding rules, buffers and positions.
"""

import random as _random_module

from ._native import _random_blocks, skein512

# pyskein's skein.Random derives bytes seeds from other objects with the standard generator.
_StandardRandom = _random_module.Random


class Random(_random_module.Random):
    """pyskein's ``skein.Random``: a :class:`random.Random` whose bits come from Skein.

    Seeding hashes the old state and the seed (bytes; other seeds go through
    :class:`random.Random` first, as in pyskein). Each generator step uses the state as a
    Threefish key: it emits the encryption of block 1 and moves to that of block 0.
    """

    def __init__(self, seed=None, hasher=skein512):
        self._hasher = hasher
        self._state_bytes = hasher().block_size
        self._state = bytes(self._state_bytes)
        self._buffer = b""
        self._number = 0
        self._bits = 0
        super().__init__(seed)

    def seed(self, seed=None):
        """Mixes `seed` into the state (pyskein's rule: reseeding does not forget)."""
        if not isinstance(seed, bytes):
            derive = _StandardRandom(seed)
            seed = bytes(derive.randrange(256) for _ in range(self._state_bytes))
        self._state = self._hasher(self._state + seed).digest()
        self._buffer = b""
        self._number = 0
        self._bits = 0

    def read(self, n):
        """The next `n` bytes of the stream (``read(m) + read(n) == read(m + n)``)."""
        if n < 0:
            raise ValueError("number of random bytes needs to be >= 0")
        if len(self._buffer) < n:
            blocks = -(-(n - len(self._buffer)) // self._state_bytes)
            self._state, fresh = _random_blocks(self._state, blocks)
            self._buffer += fresh
        out, self._buffer = self._buffer[:n], self._buffer[n:]
        return out

    def getrandbits(self, k):
        """An int of `k` random bits, least significant first from the byte stream."""
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        need = k - self._bits
        if need > 0:
            fresh = self.read((need + 7) // 8)
            self._number |= int.from_bytes(fresh, "little") << self._bits
            self._bits += 8 * len(fresh)
        value = self._number & ((1 << k) - 1)
        self._number >>= k
        self._bits -= k
        return value

    def random(self):
        """A float in [0.0, 1.0) from 53 bits of the stream."""
        return self.getrandbits(53) * (2.0**-53)

    def getstate(self):
        """The state as pyskein's tuple (state, buffer, number, bits, gauss_next)."""
        return (self._state, self._buffer, self._number, self._bits, self.gauss_next)

    def setstate(self, state):
        """Restores a tuple of :meth:`getstate` (ours or pyskein's)."""
        (self._state, self._buffer, self._number, self._bits, self.gauss_next) = state


class RandomBytes:
    """pyskein's ``skein.RandomBytes``: reseeding hashes the state and the seed; ``read(n)``
    hashes the state with an output of state + n bytes, whose first state bytes are the next
    state and the rest is returned.
    """

    def __init__(self, seed, hasher=skein512):
        self._hasher = hasher
        self.state_size = hasher().block_size
        self._state = bytes(self.state_size)
        self.seed(seed)

    def seed(self, seed):
        """Mixes bytes `seed` into the state."""
        self._state = self._hasher(self._state + seed).digest()

    def read(self, n):
        """`n` pseudo-random bytes."""
        size = self.state_size
        out = self._hasher(self._state, digest_bits=8 * (size + n))
        self._state = out.digest(0, size)
        return out.digest(size, size + n)


class StreamCipher:
    """pyskein's ``skein.StreamCipher``: the XOR with the output of a keyed Skein with
    2**64 - 1 output bits, read from the current position (the nonce makes it unique)."""

    DIGEST_BITS = 2**64 - 1

    def __init__(self, key, nonce=b"", hasher=skein512):
        self._h = hasher(key=key, nonce=nonce, digest_bits=self.DIGEST_BITS)
        self._pos = 0

    def keystream(self, n):
        """The next `n` keystream bytes."""
        stream = self._h.digest(self._pos, self._pos + n)
        self._pos += n
        return stream

    def encrypt(self, plain):
        """`plain` (bytes-like) XOR the keystream; the position moves on by its length."""
        try:
            view = memoryview(plain).cast("B")
        except TypeError:
            return self._encrypt_items(plain)
        n = view.nbytes
        stream = self.keystream(n)
        mixed = int.from_bytes(view, "little") ^ int.from_bytes(stream, "little")
        return mixed.to_bytes(n, "little")

    def _encrypt_items(self, plain):
        # pyskein XORs any sized iterable of small ints (a list of byte values, say).
        stream = self.keystream(len(plain))
        try:
            return bytes(x ^ y for x, y in zip(plain, stream))
        except TypeError as e:
            self._pos -= len(plain)
            raise TypeError("argument must be a bytes object") from e

    decrypt = encrypt
