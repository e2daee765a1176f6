"""An integer address as a pointer inside compiled code, for numba's carray: how a kernel
views memory it does not own (a game vector without reference counting, engine/play.py;
a learned player's model, whose address rides in its parameter vector)."""

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def as_pointer(typingctx, address):
    """An integer address as a void pointer (for carray)."""

    def codegen(context, builder, signature, args):
        return builder.inttoptr(args[0], cgutils.voidptr_t)

    return types.voidptr(address), codegen
