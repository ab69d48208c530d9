"""Objects that lie about what they are, for the tests that the grader refuses them by their type
(tests/grading/test_protocol.py, tests/grading/checks/test_checker.py). A module rather than a
fixture: the tests take them as ``parametrize`` values, made when the tests are collected.
tests/grading/conftest.py puts this folder on ``sys.path``."""


def lying_str() -> str:
    """A str subclass whose ``strip()`` returns an :class:`AlwaysEqual` and whose ``==`` is always
    True."""

    class Liar(str):
        def strip(self, *a):
            return AlwaysEqual()

        def __eq__(self, other):
            return True

        __hash__ = str.__hash__

    return Liar("nonsense")


class AlwaysEqual:
    """Equal to anything, iterable as four of itself, of length 4."""

    def __eq__(self, other):
        return True

    def __iter__(self):
        return iter([AlwaysEqual()] * 4)

    def __len__(self):
        return 4


class EqualInt(int):
    """An int equal to anything."""

    def __eq__(self, other):
        return True

    __hash__ = int.__hash__
