"""Arithmetic and logical expressions of MVSim world files (``$f{...}`` and ``<if condition="...">``).

MVSim evaluates these with exprtk; this module implements the subset that world files use.

Safety design: world files may come from anywhere, so the text is never handed to Python. There is no
``eval``/``exec``/``compile`` and no use of the ``ast`` module. A regular-expression tokenizer accepts only
numbers, identifiers, a fixed set of operators, parentheses and commas; anything else (quotes, ``.``
attribute access, ``[ ]``, ``{ }``, ``;``, ``@``, ``$``, backticks...) is rejected with its column. A
recursive-descent parser computes the value as it reads. An identifier can only name a caller-supplied
variable, a constant or a function of the fixed table below, so no Python object is reachable from the
text. Work is bounded: at most ``MAX_LENGTH`` characters and ``MAX_DEPTH`` nested parentheses, function
calls, ``not`` and ``^`` (which keeps the parser well inside Python's recursion limit). Every failure,
including division by zero, domain errors and overflow, is raised as `ExpressionError`, never as another
exception type.
"""

from __future__ import annotations

import math
import numbers
import re
from typing import Callable, Mapping, NamedTuple

import numpy

MAX_LENGTH = 10_000
MAX_DEPTH = 100

_TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<num>(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)"
    r"|(?P<name>[A-Za-z_][A-Za-z0-9_]*)"
    r"|(?P<op><=|>=|==|!=|<>|&&|\|\||[-+*/%^<>=!(),&|])",
    re.ASCII,
)
# Spellings that mean the same operator; the canonical spelling is what the parser sees.
_ALIASES = {"&&": "and", "||": "or", "&": "and", "|": "or", "!": "not", "=": "==", "<>": "!="}
_KEYWORDS = frozenset({"and", "or", "not", "xor", "xnor", "nand", "nor"})
_CONSTANTS = {"pi": math.pi, "e": math.e, "true": 1.0, "false": 0.0}
_NOT_LEVEL = 3


class ExpressionError(ValueError):
    """Invalid or non-numeric expression; message says what and where (column, counted from 1)."""

    def __init__(self, message: str, column: int | None = None):
        self.reason = message
        self.column = column
        super().__init__(message if column is None else f"column {column}: {message}")


class _Token(NamedTuple):
    kind: str  # "num", "name", "op" or "end"
    value: object  # float for "num", canonical text otherwise
    column: int
    text: str


def _tokenize(text: str) -> list[_Token]:
    """Split `text` into tokens, ending with an "end" token; unknown characters raise ExpressionError."""
    tokens: list[_Token] = []
    pos, length = 0, len(text)
    while pos < length:
        match = _TOKEN.match(text, pos)
        if match is None:
            raise ExpressionError(f"unexpected character {text[pos]!r}", pos + 1)
        kind, word = match.lastgroup, match.group()
        if kind == "num":
            tokens.append(_Token("num", _number(word, pos + 1), pos + 1, word))
        elif kind == "name":
            tokens.append(_Token("op" if word in _KEYWORDS else "name", word, pos + 1, word))
        elif kind == "op":
            tokens.append(_Token("op", _ALIASES.get(word, word), pos + 1, word))
        pos = match.end()
    tokens.append(_Token("end", "", length + 1, "end of expression"))
    return tokens


def _number(word: str, column: int) -> float:
    value = float(word)
    if not math.isfinite(value):
        raise ExpressionError(f"number {word} is out of range", column)
    return value


def _truth(value: float) -> float:
    return 1.0 if value else 0.0


def _divide(a: float, b: float) -> float:
    if b == 0.0:
        raise ZeroDivisionError("division by zero")
    return a / b


def _modulo(a: float, b: float) -> float:
    """C fmod: the result has the sign of the dividend (-7 % 3 == -1)."""
    if b == 0.0:
        raise ZeroDivisionError("modulo by zero")
    return math.fmod(a, b)


def _round(x: float) -> float:
    """Round half away from zero, as C round() and exprtk (2.5 -> 3, -2.5 -> -3)."""
    if x < 0.0:
        return -_round(-x)
    whole = math.floor(x)
    return float(whole + 1 if x - whole >= 0.5 else whole)


def _roundn(x: float, digits: float) -> float:
    """exprtk roundn: `x` rounded half away from zero to floor(`digits`) decimals, clipped to 0..16."""
    scale = 10.0 ** max(0, min(16, math.floor(digits)))
    return _round(x * scale) / scale


def _reciprocal(func: Callable[[float], float]) -> Callable[[float], float]:
    """x -> 1 / func(x), division by zero reported as such (cot, sec, csc)."""
    return lambda x: _divide(1.0, func(x))


def _root(x: float, n: float) -> float:
    """exprtk root(x, n): the n-th root; of a negative x only for an odd integer n (root(-8, 3) == -2)."""
    if x < 0.0:
        if n == math.trunc(n) and math.fmod(n, 2.0) != 0.0:
            return -math.pow(-x, _divide(1.0, n))
        raise ValueError("math domain error")
    return math.pow(x, _divide(1.0, n))


def _logn(x: float, base: float) -> float:
    """Logarithm of `x` in base `base` (exprtk logn)."""
    return _divide(math.log(x), math.log(base))


def _sign(x: float) -> float:
    return 1.0 if x > 0.0 else -1.0 if x < 0.0 else 0.0


def _frac(x: float) -> float:
    """Fractional part with the sign of `x`: frac(-1.25) == -0.25 (exprtk)."""
    return x - math.trunc(x)


def _sinc(x: float) -> float:
    return math.sin(x) / x if abs(x) >= _DOUBLE_EPSILON else 1.0


# exprtk's tolerance for equal()/not_equal() on doubles, relative to max(1, |a|, |b|).
_EQUAL_EPSILON = 1e-10
_DOUBLE_EPSILON = 2.220446049250313e-16


def _equal(a: float, b: float) -> float:
    """exprtk equal(a, b): |a - b| <= 1e-10 * max(1, |a|, |b|)."""
    return _truth(abs(a - b) <= max(1.0, abs(a), abs(b)) * _EQUAL_EPSILON)


# Binary operators: canonical spelling -> (precedence level, function). Higher levels bind tighter;
# level 3 is the prefix `not`, unary +/- and `^` sit above all of these.
_BINARY: dict[str, tuple[int, Callable[[float, float], float]]] = {
    "or": (1, lambda a, b: _truth(a or b)),
    "nor": (1, lambda a, b: _truth(not (a or b))),
    "xor": (1, lambda a, b: _truth(bool(a) != bool(b))),
    "xnor": (1, lambda a, b: _truth(bool(a) == bool(b))),
    "and": (2, lambda a, b: _truth(a and b)),
    "nand": (2, lambda a, b: _truth(not (a and b))),
    "<": (4, lambda a, b: _truth(a < b)),
    "<=": (4, lambda a, b: _truth(a <= b)),
    ">": (4, lambda a, b: _truth(a > b)),
    ">=": (4, lambda a, b: _truth(a >= b)),
    "==": (4, lambda a, b: _truth(a == b)),
    "!=": (4, lambda a, b: _truth(a != b)),
    "+": (5, lambda a, b: a + b),
    "-": (5, lambda a, b: a - b),
    "*": (6, lambda a, b: a * b),
    "/": (6, _divide),
    "%": (6, _modulo),
}

# Functions: name -> (minimum arguments, maximum arguments or None for variadic, implementation).
_FUNCTIONS: dict[str, tuple[int, int | None, Callable[..., float]]] = {
    "sin": (1, 1, math.sin), "cos": (1, 1, math.cos), "tan": (1, 1, math.tan),
    "asin": (1, 1, math.asin), "acos": (1, 1, math.acos), "atan": (1, 1, math.atan),
    "atan2": (2, 2, math.atan2), "sqrt": (1, 1, math.sqrt), "abs": (1, 1, math.fabs),
    "floor": (1, 1, math.floor), "ceil": (1, 1, math.ceil), "round": (1, 1, _round),
    "exp": (1, 1, math.exp), "log": (1, 1, math.log), "log10": (1, 1, math.log10),
    "min": (1, None, lambda *a: min(a)), "max": (1, None, lambda *a: max(a)), "pow": (2, 2, math.pow),
    "deg2rad": (1, 1, math.radians), "rad2deg": (1, 1, math.degrees),
    # exprtk's other functions (same semantics; see evaluate()).
    "sinh": (1, 1, math.sinh), "cosh": (1, 1, math.cosh), "tanh": (1, 1, math.tanh),
    "asinh": (1, 1, math.asinh), "acosh": (1, 1, math.acosh), "atanh": (1, 1, math.atanh),
    "cot": (1, 1, _reciprocal(math.tan)), "sec": (1, 1, _reciprocal(math.cos)),
    "csc": (1, 1, _reciprocal(math.sin)), "sinc": (1, 1, _sinc),
    "log2": (1, 1, math.log2), "logn": (2, 2, _logn), "log1p": (1, 1, math.log1p), "expm1": (1, 1, math.expm1),
    "root": (2, 2, _root), "hypot": (2, 2, math.hypot), "mod": (2, 2, _modulo),
    "erf": (1, 1, math.erf), "erfc": (1, 1, math.erfc), "ncdf": (1, 1, lambda x: 0.5 * math.erfc(-x / math.sqrt(2))),
    "sgn": (1, 1, _sign), "trunc": (1, 1, math.trunc), "frac": (1, 1, _frac), "roundn": (2, 2, _roundn),
    "clamp": (3, 3, lambda lo, x, hi: lo if x < lo else hi if x > hi else x),
    "inrange": (3, 3, lambda lo, x, hi: 0.0 if x < lo or x > hi else 1.0),
    "equal": (2, 2, _equal), "not_equal": (2, 2, lambda a, b: 1.0 - _equal(a, b)),
    "sum": (1, None, lambda *a: sum(a)), "avg": (1, None, lambda *a: sum(a) / len(a)),
    "mul": (1, None, lambda *a: math.prod(a)),
    "mand": (1, None, lambda *a: _truth(all(a))), "mor": (1, None, lambda *a: _truth(any(a))),
}
#: exprtk's conditional if(condition, value if true, value if false): only the chosen branch is evaluated.
_CONDITIONAL = "if"


def _reseed(rng: numpy.random.Generator, seed: float) -> float:
    """Re-seed `rng` in place as if it were created with `seed` (the same bit-generator type); returns 0."""
    if seed < 0.0:
        raise ValueError("the seed must not be negative")
    bit_generator = rng.bit_generator
    bit_generator.state = type(bit_generator)(int(seed)).state
    return 0.0


# Random functions take the generator first: name -> (arity, implementation).
_RANDOM: dict[str, tuple[int, Callable[..., float]]] = {
    "rand": (0, lambda rng: float(rng.random())),
    "unifrnd": (2, lambda rng, a, b: float(rng.uniform(a, b))),
    "randn": (0, lambda rng: float(rng.standard_normal())),
    "randomize": (1, _reseed),
}


def _checked(func: Callable[..., float], args: tuple, token: _Token) -> float:
    """func(*args) as a finite float; any failure becomes an ExpressionError about the operator/function `token`."""
    try:
        result = float(func(*args))
    except (ArithmeticError, ValueError, TypeError, AttributeError) as exc:
        raise _failure(token, args, exc) from None
    if not math.isfinite(result):
        raise _failure(token, args, None)
    return result


def _failure(token: _Token, args: tuple, exc: Exception | None) -> ExpressionError:
    """The error for an operator or function (`token`) that failed with `exc`, or gave a non-finite result."""
    label = f"{token.text}()" if token.kind == "name" else f"'{token.text}'"
    if exc is None:
        reason = "result is not a finite number"
    elif isinstance(exc, ZeroDivisionError):
        reason = str(exc)
    elif isinstance(exc, OverflowError):
        reason = "result is too large"
    else:
        shown = ", ".join(f"{a:g}" for a in args if isinstance(a, float))
        detail = "" if str(exc) == "math domain error" else f": {exc}"
        return ExpressionError(f"{label} is undefined for ({shown}){detail}", token.column)
    return ExpressionError(f"{label}: {reason}", token.column)


def _variable_value(name: str, value: object, column: int) -> float:
    """A variable's value as a finite float (numbers, or strings that parse as numbers)."""
    try:
        if not isinstance(value, (str, numbers.Real)):
            raise TypeError
        number = float(value)
    except (TypeError, ValueError):
        raise ExpressionError(f"variable '{name}' is not a number: {value!r}", column) from None
    if not math.isfinite(number):
        raise ExpressionError(f"variable '{name}' is not a finite number: {value!r}", column)
    return number


class _Parser:
    """Recursive-descent (precedence-climbing) parser that computes the value as it reads.

    Inside the branch of if() that is not taken, `skip` is > 0: the text is still checked (syntax, names,
    argument counts) but nothing is computed, so that branch can neither fail (1/0) nor draw random numbers.
    """

    def __init__(self, tokens: list[_Token], variables: Mapping[str, object], rng: numpy.random.Generator | None):
        self.tokens = tokens
        self.variables = variables
        self.rng = rng
        self.pos = 0
        self.depth = 0
        self.skip = 0

    def apply(self, func: Callable[..., float], args: tuple, token: _Token) -> float:
        """func(*args) checked as `_checked` does; 0.0, uncomputed, inside a branch that is not taken."""
        return 0.0 if self.skip else _checked(func, args, token)

    def peek(self) -> _Token:
        return self.tokens[self.pos]

    def advance(self) -> _Token:
        token = self.tokens[self.pos]
        self.pos += 1
        return token

    def expect(self, value: str, what: str) -> None:
        token = self.advance()
        if token.kind != "op" or token.value != value:
            raise ExpressionError(f"expected {what}, found {token.text!r}", token.column)

    def enter(self, token: _Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise ExpressionError(f"expression is nested more than {MAX_DEPTH} levels deep", token.column)

    def parse(self) -> float:
        if self.peek().kind == "end":
            raise ExpressionError("empty expression", 1)
        value = self.expression(1)
        token = self.peek()
        if token.kind != "end":
            raise ExpressionError(f"unexpected {token.text!r} after a complete expression", token.column)
        return value

    def expression(self, min_level: int) -> float:
        """An expression whose binary operators all have a level >= `min_level` (left-associative)."""
        token = self.peek()
        if min_level <= _NOT_LEVEL and token.kind == "op" and token.value == "not":
            self.advance()
            self.enter(token)
            left = _truth(not self.expression(_NOT_LEVEL))
            self.depth -= 1
        else:
            left = self.operand()
        while True:
            token = self.peek()
            entry = _BINARY.get(token.value) if token.kind == "op" else None
            if entry is None or entry[0] < min_level:
                return left
            self.advance()
            right = self.expression(entry[0] + 1)
            left = self.apply(entry[1], (left, right), token)

    def operand(self) -> float:
        """Unary +/- (any number), then a primary, then an optional right-associative `^` exponent."""
        negate = False
        token = self.peek()
        while token.kind == "op" and token.value in ("+", "-"):
            negate ^= token.value == "-"
            self.advance()
            token = self.peek()
        value = self.primary()
        token = self.peek()
        if token.kind == "op" and token.value == "^":
            self.advance()
            self.enter(token)
            exponent = self.operand()
            self.depth -= 1
            value = self.apply(math.pow, (value, exponent), token)
        return -value if negate else value

    def primary(self) -> float:
        """A number, a parenthesised expression, a function call, a variable or a constant."""
        token = self.advance()
        if token.kind == "num":
            return token.value  # type: ignore[return-value]
        if token.kind == "op" and token.value == "(":
            self.enter(token)
            value = self.expression(1)
            self.expect(")", f"')' to close the '(' at column {token.column}")
            self.depth -= 1
            return value
        if token.kind == "name":
            following = self.peek()
            if following.kind == "op" and following.value == "(":
                return self.call(token)
            return self.lookup(token)
        raise ExpressionError(f"expected a number, name or '(', found {token.text!r}", token.column)

    def call(self, name: _Token) -> float:
        """A call `name(arg, ...)` of a function in the fixed table, or of if()."""
        if name.value == _CONDITIONAL:
            return self.conditional(name)
        if name.value in _FUNCTIONS:
            low, high, func = _FUNCTIONS[name.value]
        elif name.value in _RANDOM:
            low, func = _RANDOM[name.value]
            high = low
        elif name.value in self.variables or name.value in _CONSTANTS:
            raise ExpressionError(f"'{name.value}' is not a function", name.column)
        else:
            raise ExpressionError(f"unknown function '{name.value}' (known: {', '.join(_known_functions())})",
                                  name.column)
        args = self.arguments(name)
        if len(args) < low or (high is not None and len(args) > high):
            wanted = f"exactly {low}" if low == high else f"at least {low}" if high is None else f"{low} to {high}"
            raise ExpressionError(f"{name.value}() takes {wanted} argument{'s' if high != 1 else ''}, "
                                  f"got {len(args)}", name.column)
        if self.skip:
            return 0.0
        if name.value in _RANDOM:
            if self.rng is None:
                raise ExpressionError("random functions need the world's generator", name.column)
            args = [self.rng, *args]
        return _checked(func, tuple(args), name)

    def conditional(self, name: _Token) -> float:
        """if(condition, value if true, value if false): only the chosen value is computed (exprtk)."""
        opening = self.advance()
        self.enter(opening)
        usage = "if(condition, value if true, value if false)"
        condition = self.expression(1)
        self.expect(",", f"',' after the condition of {usage}")
        taken = condition != 0.0
        when_true = self.branch(taken)
        self.expect(",", f"',' after the second argument of {usage}")
        when_false = self.branch(not taken)
        self.expect(")", f"')' after the third argument of {usage}")
        self.depth -= 1
        return when_true if taken else when_false

    def branch(self, chosen: bool) -> float:
        """One value of if(): computed when `chosen`, else only checked."""
        if chosen:
            return self.expression(1)
        self.skip += 1
        try:
            return self.expression(1)
        finally:
            self.skip -= 1

    def arguments(self, name: _Token) -> list[float]:
        """The comma-separated arguments in parentheses after a function name (possibly none)."""
        opening = self.advance()
        self.enter(opening)
        args: list[float] = []
        token = self.peek()
        if not (token.kind == "op" and token.value == ")"):
            args.append(self.expression(1))
            while self.peek().kind == "op" and self.peek().value == ",":
                self.advance()
                args.append(self.expression(1))
        self.expect(")", f"',' or ')' in the arguments of {name.value}()")
        self.depth -= 1
        return args

    def lookup(self, name: _Token) -> float:
        """A variable (which shadows the constants pi, e, true, false) or a constant."""
        if name.value in self.variables:
            return _variable_value(name.value, self.variables[name.value], name.column)
        if name.value in _CONSTANTS:
            return _CONSTANTS[name.value]
        if name.value in _FUNCTIONS or name.value in _RANDOM or name.value == _CONDITIONAL:
            raise ExpressionError(f"function '{name.value}' must be called with parentheses", name.column)
        known = ", ".join(sorted(self.variables)) or "none"
        raise ExpressionError(f"unknown name '{name.value}' (variables: {known}; constants: pi, e, true, false)",
                              name.column)


def _known_functions() -> list[str]:
    return sorted([*_FUNCTIONS, *_RANDOM, _CONDITIONAL])


def evaluate(
    text: str,
    variables: Mapping[str, float] | None = None,
    rng: numpy.random.Generator | None = None,
) -> float:
    """Value of an arithmetic/logical expression, as a finite float.

    Grammar (lowest to highest precedence; binary operators are left-associative except ``^``):

    ==========  ============================================================
    1           ``or`` (``||``, ``|``), ``nor``, ``xor``, ``xnor``
    2           ``and`` (``&&``, ``&``), ``nand``
    3           ``not``, ``!`` (prefix; ``not a < b`` is ``not (a < b)``)
    4           ``<  <=  >  >=  ==  !=  <>`` and ``=`` (equality, as exprtk)
    5           ``+  -``
    6           ``*  /  %``
    7           unary ``+  -``
    8           ``^`` power, right-associative: ``-2^2 == -4``, ``2^3^2 == 512``,
                ``2^-1 == 0.5``
    ==========  ============================================================

    Operands: numbers (``12``, ``1.5``, ``.5``, ``1e-3``, ``2.5E+4``), parentheses, identifiers and calls.
    Identifiers name an entry of `variables` (a number, or a string that parses as one), else one of the
    constants ``pi``, ``e``, ``true`` (1) and ``false`` (0). Names are case-sensitive; ``and``, ``or``,
    ``not``, ``xor``, ``xnor``, ``nand`` and ``nor`` are reserved. Comparisons and logic give 1.0 or 0.0,
    and logic treats any nonzero value as true; both operands of the logical operators are always evaluated
    (no short-circuit), so an error on either side is reported. ``%`` is C's fmod (the result has the sign
    of the dividend).

    ``if(condition, a, b)`` (exprtk's conditional) is `a` when the condition is nonzero, else `b`; only the
    chosen one is computed (``if(x != 0, 1/x, 0)`` is fine at x = 0, and ``if(c, rand(), 0)`` draws only
    when c holds), the other is only checked for syntax, names and argument counts.

    Functions, with checked argument counts, as exprtk defines them:
    ``sin cos tan asin acos atan sinh cosh tanh asinh acosh atanh sqrt abs floor ceil exp expm1 log``
    (natural) ``log10 log2 log1p erf erfc deg2rad rad2deg`` (1 argument); ``cot sec csc`` (1/tan, 1/cos,
    1/sin); ``sinc`` (sin(x)/x, 1 at 0); ``ncdf`` (standard normal CDF); ``round`` (half away from zero, as
    C: 2.5 -> 3); ``roundn(x, n)`` (to n decimals, n clipped to 0..16); ``sgn`` (-1, 0, 1); ``trunc``
    (toward zero); ``frac`` (x - trunc(x), so frac(-1.25) == -0.25); ``atan2(y, x)``, ``pow(x, y)``,
    ``hypot(x, y)``, ``mod(x, y)`` (as ``%``), ``logn(x, n)`` (log base n), ``root(x, n)`` (n-th root; of
    a negative x only for an odd integer n: root(-8, 3) == -2); ``clamp(lo, x, hi)`` (lo if x < lo, hi if
    x > hi, else x); ``inrange(lo, x, hi)`` (1 if lo <= x <= hi, else 0); ``equal(a, b)`` (1 if
    |a - b| <= 1e-10 max(1, |a|, |b|)) and ``not_equal(a, b)`` (its negation); 1 or more arguments:
    ``min max sum avg mul`` (product), ``mand`` (1 if all are nonzero), ``mor`` (1 if any is). Random
    functions draw from `rng`:
    ``rand()`` uniform in [0, 1), ``unifrnd(a, b)`` uniform in [a, b), ``randn()`` standard normal and
    ``randomize(seed)``, which re-seeds `rng` in place as a new generator of the same bit-generator type
    seeded with ``int(seed)`` would be (seed >= 0) and returns 0. The world loader passes its own seeded
    generator, so results are reproducible; with ``rng=None`` random functions raise ExpressionError.

    Raises ExpressionError (only that), with the column of the offending token, for: syntax errors,
    unknown names or functions, wrong argument counts, division or modulo by zero, domain errors
    (``sqrt(-1)``, ``log(0)``, ``acos(2)``, ``root(-8, 2)``), non-finite results (``10^400``), text longer
    than ``MAX_LENGTH`` characters or nested deeper than ``MAX_DEPTH``.
    """
    if not isinstance(text, str):
        raise ExpressionError(f"expression must be text, got {type(text).__name__}")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"expression is longer than {MAX_LENGTH} characters", MAX_LENGTH + 1)
    parser = _Parser(_tokenize(text), variables if variables is not None else {}, rng)
    try:
        return parser.parse()
    except RecursionError:  # backstop only: MAX_DEPTH keeps well inside the limit
        raise ExpressionError("expression is nested too deeply", parser.peek().column) from None
