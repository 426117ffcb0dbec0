"""The one error type of ``explore``: bad input the user can fix (exit 2, one line)."""


class ExploreError(Exception):
    """A one-line error naming the thing at fault; the command exits 2 and writes nothing."""
