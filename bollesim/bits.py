"""Bit masks as sets (vehicles, positions): counting and walking their members with
the processor's own instructions, for the fast engine and compiled policies alike."""

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

from bollesim.jit import compiled


@intrinsic
def _ctpop(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.ctpop(args[0])

    return types.int64(types.int64), codegen


@intrinsic
def _cttz(typingctx, x):
    def codegen(context, builder, signature, args):
        return builder.cttz(args[0], ir.Constant(ir.IntType(1), 0))

    return types.int64(types.int64), codegen


@compiled(inline=True)
def popcount(mask):
    """How many members a (non-negative) mask has."""
    return _ctpop(mask)


@compiled(inline=True)
def lowest(mask):
    """The smallest member of a non-empty mask."""
    return _cttz(mask)
