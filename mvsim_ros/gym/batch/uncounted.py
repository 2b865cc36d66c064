"""`uncounted(value)`, for compiled code: `value` (an array, a namedtuple of arrays and numbers, nested) with every
array as a view of the same memory that carries no reference count (no meminfo), so that reading it through
numba's runtime costs no atomic increment and decrement.

The batch's typed list of copies (copy_list.py) holds such views: a copy's named data holds some hundred arrays,
and reading one copy's entry with counted arrays costs some 2 us a step. Whoever stores an uncounted view keeps the
arrays it views alive (BatchCopy.arrays holds them) and replaces the view before that memory is let go.
"""

from __future__ import annotations

from llvmlite.ir import Constant
from numba import types
from numba.extending import intrinsic, overload


@intrinsic
def uncounted_array(typingctx, array):
    """The array `array` as a view without a meminfo or parent object (the same data, shape and strides)."""
    if not isinstance(array, types.Array):
        return None

    def codegen(context, builder, signature, args):
        model = context.data_model_manager[signature.args[0]]
        value = args[0]
        for field in ("meminfo", "parent"):
            null = Constant(context.get_value_type(model.get_type(field)), None)
            value = builder.insert_value(value, null, model.get_field_position(field))
        return value

    return array(array), codegen


def uncounted(value):
    """`value` with its arrays uncounted (see the module docstring); compiled code only."""
    raise NotImplementedError("uncounted runs in compiled code only")


@overload(uncounted)
def uncounted_overload(value):
    """Arrays: uncounted_array; namedtuples: the same namedtuple of uncounted fields; anything else as it is."""
    if isinstance(value, types.Array):
        return lambda value: uncounted_array(value)
    if isinstance(value, types.BaseNamedTuple):
        fields = ", ".join(f"uncounted(value.{name})" for name in value.fields)
        scope = {"named": value.instance_class, "uncounted": uncounted}
        exec(f"def rebuilt(value):\n    return named({fields})\n", scope)  # one field list per namedtuple type
        return scope["rebuilt"]
    return lambda value: value
