"""World-file expressions: precedence, functions, variables, seeded randomness, and errors that are only
ExpressionError (never a leaked ZeroDivisionError, OverflowError, RecursionError...)."""

import inspect
import math
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mvsim_ros.world.xml.expressions import MAX_DEPTH, MAX_LENGTH, ExpressionError, evaluate


@pytest.mark.parametrize("text, expected", [
    ("12", 12.0), ("1.5", 1.5), (".5", 0.5), ("1e-3", 0.001), ("2.5E+4", 25000.0), ("3.", 3.0),
    ("1+2*3", 7.0), ("(1+2)*3", 9.0), ("10-4-3", 3.0), ("2*3/4", 1.5), ("8/4/2", 1.0),
    ("-2^2", -4.0), ("2^3^2", 512.0), ("2*3^2", 18.0), ("(-2)^2", 4.0), ("2^-1", 0.5), ("-2^-2", -0.25),
    ("7%3", 1.0), ("-7%3", -1.0), ("7%-3", 1.0), ("7.5%2", 1.5), ("2*7%4", 2.0),
    ("--3", 3.0), ("-+-3", 3.0), ("+3", 3.0), ("1 - -1", 2.0),
    ("1 < 2", 1.0), ("2 < 1", 0.0), ("2 <= 2", 1.0), ("3 > 2", 1.0), ("2 >= 3", 0.0),
    ("2 == 2", 1.0), ("2 = 2", 1.0), ("2 = 3", 0.0), ("2 != 3", 1.0), ("2 <> 2", 0.0), ("1 + 1 == 2", 1.0),
    ("1 < 2 < 3", 1.0), ("3 > 2 > 1", 0.0),
    ("1 < 2 and 3 > 4", 0.0), ("1 < 2 or 3 > 4", 1.0), ("1 < 2 && 3 < 4", 1.0), ("0 || 0", 0.0),
    ("0.5 and 2", 1.0), ("0 or -3", 1.0),
    ("not 0", 1.0), ("not 5", 0.0), ("!0", 1.0), ("not not 7", 1.0), ("not 1 < 2", 0.0),
    ("not 0 and 0", 0.0), ("1 or 0 and 0", 1.0), ("(1 or 0) and 0", 0.0), ("not (1 == 1)", 0.0),
    ("true", 1.0), ("false", 0.0), ("true and not false", 1.0),
])
def test_precedence_and_associativity(text, expected):
    assert evaluate(text) == expected


def test_results_are_floats():
    assert type(evaluate("1")) is float and type(evaluate("floor(2.5)")) is float and type(evaluate("1<2")) is float


@pytest.mark.parametrize("text, expected", [
    ("sin(0)", 0.0), ("sin(pi/2)", 1.0), ("cos(0)", 1.0), ("cos(pi)", -1.0), ("tan(0)", 0.0),
    ("asin(1)", math.pi / 2), ("acos(1)", 0.0), ("acos(-1)", math.pi), ("atan(1)", math.pi / 4),
    ("atan2(1, 1)", math.pi / 4), ("atan2(1, -1)", 3 * math.pi / 4), ("atan2(-1, 0)", -math.pi / 2),
    ("sqrt(16)", 4.0), ("sqrt(2)", math.sqrt(2)), ("abs(-3.5)", 3.5), ("abs(2)", 2.0),
    ("floor(2.7)", 2.0), ("floor(-2.2)", -3.0), ("ceil(2.2)", 3.0), ("ceil(-2.7)", -2.0),
    ("round(2.5)", 3.0), ("round(-2.5)", -3.0), ("round(2.4)", 2.0), ("round(0.5)", 1.0),
    ("round(0.49999999999999994)", 0.0), ("round(-0.4)", 0.0), ("round(1.5)", 2.0),
    ("exp(0)", 1.0), ("exp(1)", math.e), ("log(e)", 1.0), ("log(1)", 0.0), ("log10(1000)", 3.0),
    ("min(3, 1, 2)", 1.0), ("max(3, 1, 2)", 3.0), ("min(4)", 4.0), ("max(-1, -2)", -1.0),
    ("pow(2, 10)", 1024.0), ("pow(4, 0.5)", 2.0), ("deg2rad(180)", math.pi), ("rad2deg(pi)", 180.0),
    ("deg2rad(90)", math.pi / 2), ("2*cos(0) + sqrt(9)", 5.0), ("max(1, min(5, 3)) ^ 2", 9.0),
])
def test_functions(text, expected):
    assert evaluate(text) == pytest.approx(expected, abs=1e-15, rel=1e-15)


@pytest.mark.parametrize("text, expected", [
    ("sinh(0)", 0.0), ("cosh(0)", 1.0), ("tanh(0)", 0.0), ("sinh(1)", math.sinh(1)), ("tanh(-2)", math.tanh(-2)),
    ("asinh(0)", 0.0), ("acosh(1)", 0.0), ("atanh(0.5)", math.atanh(0.5)),
    ("cot(pi/4)", 1 / math.tan(math.pi / 4)), ("sec(0)", 1.0), ("csc(pi/2)", 1.0), ("sec(pi)", -1.0),
    ("sinc(0)", 1.0), ("sinc(pi/2)", 2 / math.pi),
    ("log2(8)", 3.0), ("log2(0.25)", -2.0), ("logn(81, 3)", math.log(81) / math.log(3)),
    ("logn(1000, 10)", math.log(1000) / math.log(10)),
    ("log1p(0)", 0.0), ("expm1(0)", 0.0), ("erf(0)", 0.0), ("erf(1)", math.erf(1)), ("erf(-1)", -math.erf(1)),
    ("erfc(0)", 1.0), ("ncdf(0)", 0.5), ("ncdf(1.96)", 0.5 * math.erfc(-1.96 / math.sqrt(2))),
    ("root(27, 3)", 27 ** (1 / 3)), ("root(16, 4)", 2.0), ("root(-8, 3)", -2.0), ("root(-32, 5)", -2.0),
    ("root(2, 0.5)", 4.0), ("hypot(3, 4)", 5.0), ("hypot(-5, 12)", 13.0), ("mod(7, 3)", 1.0), ("mod(-7, 3)", -1.0),
    ("sgn(-3.5)", -1.0), ("sgn(0)", 0.0), ("sgn(2e-300)", 1.0),
    ("trunc(2.7)", 2.0), ("trunc(-2.7)", -2.0), ("frac(2.75)", 0.75), ("frac(-1.25)", -0.25), ("frac(3)", 0.0),
    ("roundn(3.14159, 2)", 3.14), ("roundn(-2.5, 0)", -3.0), ("roundn(1.25, 1)", 1.3), ("roundn(7.5, -3)", 8.0),
    ("clamp(0, 5, 3)", 3.0), ("clamp(0, -1, 3)", 0.0), ("clamp(0, 2.5, 3)", 2.5),
    ("inrange(0, 3, 3)", 1.0), ("inrange(0, 0, 3)", 1.0), ("inrange(0, 3.5, 3)", 0.0), ("inrange(0, -1, 3)", 0.0),
    ("equal(1, 1 + 1e-11)", 1.0), ("equal(1, 1 + 1e-9)", 0.0), ("equal(1e20, 1e20 + 1e9)", 1.0),
    ("equal(0.1 + 0.2, 0.3)", 1.0), ("0.1 + 0.2 == 0.3", 0.0), ("not_equal(0.1 + 0.2, 0.3)", 0.0),
    ("not_equal(1, 2)", 1.0),
    ("min(4, 2, 8, 3)", 2.0), ("max(4, 2, 8, 3)", 8.0), ("sum(1, 2, 3, 4)", 10.0), ("sum(5)", 5.0),
    ("avg(1, 2, 3, 4)", 2.5), ("avg(7)", 7.0), ("mul(2, 3, 4)", 24.0), ("mand(1, 2, 3)", 1.0),
    ("mand(1, 0, 3)", 0.0), ("mor(0, 0, -1)", 1.0), ("mor(0, 0)", 0.0),
])
def test_exprtk_functions(text, expected):
    assert evaluate(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("1 xor 1", 0.0), ("1 xor 0", 1.0), ("0 xor 0", 0.0), ("2 xor -3", 0.0),
    ("1 xnor 1", 1.0), ("0 xnor 1", 0.0), ("1 nand 1", 0.0), ("1 nand 0", 1.0), ("0 nor 0", 1.0), ("0 nor 5", 0.0),
    ("1 & 0", 0.0), ("1 & 2", 1.0), ("0 | 0", 0.0), ("0 | 3", 1.0),
    ("1 xor 1 and 0", 1.0), ("0 and 1 nand 1", 1.0), ("1 or 1 xor 1", 0.0), ("1 <> 1", 0.0), ("1 <> 2", 1.0),
    ("2 <= 2 and 3 >= 4", 0.0), ("2 != 3 or 0", 1.0), ("not (1 xor 0)", 0.0),
])
def test_exprtk_logical_operators(text, expected):
    assert evaluate(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("if(1 < 2, 3, 4)", 3.0), ("if(0, 3, 4)", 4.0), ("if(-0.5, 3, 4)", 3.0), ("if(x <= 3 or x >= 6, 1, 0)", 1.0),
    ("if(x > 3 and x < 6, 1, 0)", 0.0), ("2 * if(x == 2, 10, 20) + 1", 21.0), ("if(1, if(0, 5, 6), 7)", 6.0),
    ("if(x != 0, 1 / x, 0)", 0.5), ("if(z != 0, 1 / z, -1)", -1.0), ("if(z, sqrt(-1), log(1))", 0.0),
    ("if(0, if(1, 1/0, 2), 8)", 8.0), ("if(1, 9, 10^400)", 9.0),
])
def test_if_evaluates_only_the_chosen_value(text, expected):
    assert evaluate(text, {"x": 2, "z": 0}) == expected


def test_if_draws_random_numbers_only_in_the_taken_branch():
    rng = np.random.default_rng(11)
    assert evaluate("if(0, rand(), 5) + if(1, 0, randn() + unifrnd(1, 2) + randomize(3))", rng=rng) == 5.0
    assert evaluate("if(1, rand(), rand() + rand())", rng=rng) == np.random.default_rng(11).random()
    reference = np.random.default_rng(11)
    reference.random()
    assert evaluate("rand()", rng=rng) == reference.random()


def test_constants():
    assert evaluate("pi") == math.pi
    assert evaluate("e") == math.e
    assert evaluate("2*pi") == 2 * math.pi


def test_variables_numbers_and_numeric_strings():
    variables = {"x": 2.5, "a": "0.3", "n": 4, "big": "1e3", "np_value": np.float64(0.5)}
    assert evaluate("x*cos(a) + 3", variables) == 2.5 * math.cos(0.3) + 3
    assert evaluate("n / 8 + big + np_value", variables) == 1001.0
    assert evaluate(" x ", {"x": " 7 "}) == 7.0


def test_variables_shadow_constants_but_not_functions():
    assert evaluate("pi + e + true", {"pi": 3, "e": 2, "true": 5}) == 10.0
    assert evaluate("min(min, 2)", {"min": 1}) == 1.0


@pytest.mark.parametrize("value", ["abc", "", None, [1], "nan", "inf", float("inf"), {"x": 1}])
def test_variable_that_is_not_a_finite_number(value):
    with pytest.raises(ExpressionError, match="variable 'speed'") as info:
        evaluate("1 + speed", {"speed": value})
    assert info.value.column == 5


def test_unused_bad_variable_is_not_an_error():
    assert evaluate("1", {"bad": "abc"}) == 1.0


def test_unknown_name_lists_known_variables():
    with pytest.raises(ExpressionError) as info:
        evaluate("x + y2", {"x": 1, "alpha": 2})
    message = str(info.value)
    assert "'y2'" in message and "alpha, x" in message and "column 5" in message
    assert info.value.column == 5


def test_random_functions_are_reproducible_with_the_same_seed():
    first = [evaluate("rand() + 10*randn() + unifrnd(2, 3)", rng=np.random.default_rng(42)) for _ in range(3)]
    assert first[0] == first[1] == first[2]
    rng_a, rng_b = np.random.default_rng(7), np.random.default_rng(7)
    seq_a = [evaluate("rand()", rng=rng_a) for _ in range(5)]
    seq_b = [evaluate("rand()", rng=rng_b) for _ in range(5)]
    assert seq_a == seq_b and len(set(seq_a)) == 5


def test_random_function_ranges():
    rng = np.random.default_rng(1)
    draws = [evaluate("rand()", rng=rng) for _ in range(2000)]
    assert all(0.0 <= d < 1.0 for d in draws)
    uniform = [evaluate("unifrnd(-2, 3)", rng=rng) for _ in range(2000)]
    assert all(-2.0 <= u < 3.0 for u in uniform) and min(uniform) < -1.5 and max(uniform) > 2.5
    normal = np.array([evaluate("randn()", rng=rng) for _ in range(4000)])
    assert abs(normal.mean()) < 0.1 and abs(normal.std() - 1.0) < 0.1


def test_random_values_match_numpy_draws():
    assert evaluate("rand()", rng=np.random.default_rng(3)) == np.random.default_rng(3).random()
    assert evaluate("randn()", rng=np.random.default_rng(3)) == np.random.default_rng(3).standard_normal()
    assert evaluate("unifrnd(1, 2)", rng=np.random.default_rng(3)) == np.random.default_rng(3).uniform(1, 2)


def test_randomize_reseeds_the_generator_in_place():
    rng = np.random.default_rng(123)
    evaluate("rand() + randn()", rng=rng)
    assert evaluate("randomize(5)", rng=rng) == 0.0
    assert evaluate("rand()", rng=rng) == np.random.default_rng(5).random()
    assert evaluate("randomize(5) + rand()", rng=rng) == np.random.default_rng(5).random()


def test_randomize_keeps_the_bit_generator_type():
    rng = np.random.Generator(np.random.MT19937(1))
    evaluate("randomize(9)", rng=rng)
    assert evaluate("rand()", rng=rng) == np.random.Generator(np.random.MT19937(9)).random()


@pytest.mark.parametrize("text", ["rand()", "1 + randn()", "unifrnd(0, 1)", "randomize(1)"])
def test_random_functions_without_a_generator(text):
    with pytest.raises(ExpressionError, match="random functions need the world's generator"):
        evaluate(text)


@pytest.mark.parametrize("text, message, column", [
    ("", "empty expression", 1), ("   ", "empty expression", 1),
    ("1 +", "found 'end of expression'", 4), ("(1", "expected ')'", 3), ("1)", "unexpected ')'", 2),
    ("()", "found ')'", 2), ("1 2", "unexpected '2'", 3), ("2pi", "unexpected 'pi'", 2),
    ("1.5.3", "unexpected '.3'", 4), ("1 ** 2", "found '*'", 4), ("1 < not 0", "found 'not'", 5),
    ("__import__('os')", "unexpected character \"'\"", 12), ("__import__(1)", "unknown function '__import__'", 1),
    ("lambda", "unknown name 'lambda'", 1), ("lambda: 1", "unexpected character ':'", 7),
    ("a.b", "unexpected character '.'", 2), ("[1]", "unexpected character '['", 1),
    ("'x'", "unexpected character \"'\"", 1), ('"x"', "unexpected character '\"'", 1),
    ("1;2", "unexpected character ';'", 2), ("x @ y", "unexpected character '@'", 3),
    ("$x", "unexpected character '$'", 1), ("`1`", "unexpected character '`'", 1),
    ("{1}", "unexpected character '{'", 1), ("1 ~ 2", "unexpected character '~'", 3),
    ("x(1)", "'x' is not a function", 1), ("pi(1)", "'pi' is not a function", 1),
    ("sin", "must be called with parentheses", 1), ("sin 1", "must be called with parentheses", 1),
    ("sin()", "sin() takes exactly 1 argument, got 0", 1), ("cos(1, 2)", "takes exactly 1 argument, got 2", 1),
    ("atan2(1)", "takes exactly 2 arguments, got 1", 1), ("pow(1,2,3)", "takes exactly 2 arguments", 1),
    ("min()", "takes at least 1 argument", 1), ("rand(1)", "takes exactly 0 arguments", 1),
    ("unifrnd(1)", "takes exactly 2 arguments", 1), ("max(1,)", "found ')'", 7), ("max(1 2)", "',' or ')'", 7),
    ("1/0", "division by zero", 2), ("1 % 0", "modulo by zero", 3), ("5/(2-2)", "division by zero", 2),
    ("sqrt(-1)", "sqrt() is undefined for (-1)", 1), ("log(0)", "log() is undefined", 1),
    ("log10(-1)", "undefined", 1), ("acos(2)", "acos() is undefined for (2)", 1), ("asin(-1.5)", "undefined", 1),
    ("0^-1", "'^' is undefined", 2), ("(-8)^(1/3)", "'^' is undefined", 5),
    ("10^400", "too large", 3), ("pow(10, 400)", "too large", 1), ("exp(1000)", "too large", 1),
    ("1e308 * 10", "not a finite number", 7), ("1e308 + 1e308", "not a finite number", 7),
    ("1e400", "out of range", 1), ("randomize(-1)", "must not be negative", 1),
    ("root(-8, 2)", "root() is undefined for (-8, 2)", 1), ("root(-8, 2.5)", "undefined", 1),
    ("root(8, 0)", "division by zero", 1), ("logn(8, 1)", "division by zero", 1), ("log2(0)", "undefined", 1),
    ("cot(0)", "division by zero", 1), ("csc(0)", "division by zero", 1), ("acosh(0.5)", "undefined", 1),
    ("atanh(1)", "undefined", 1), ("avg()", "takes at least 1 argument", 1), ("clamp(1, 2)", "exactly 3", 1),
    ("if(1, 2)", "expected ',' after the second argument of if(condition, value if true, value if false)", 8),
    ("if(1, 2, 3, 4)", "expected ')' after the third argument", 11), ("if(1)", "',' after the condition", 5),
    ("if", "must be called with parentheses", 1), ("if(0, nope, 1)", "unknown name 'nope'", 7),
    ("if(0, sin(1, 2), 1)", "sin() takes exactly 1 argument", 7), ("if(1, 1/0, 1)", "division by zero", 8),
    ("x xor", "found 'end of expression'", 6),
])
def test_errors_name_what_and_where(text, message, column):
    with pytest.raises(ExpressionError) as info:
        evaluate(text, {"x": 1}, rng=np.random.default_rng(0))
    assert message in str(info.value)
    assert info.value.column == column and f"column {column}" in str(info.value)


def test_expression_error_is_a_value_error():
    assert issubclass(ExpressionError, ValueError)


def test_deep_nesting_is_refused():
    assert evaluate("(" * MAX_DEPTH + "1" + ")" * MAX_DEPTH) == 1.0
    deep = ["(" * (MAX_DEPTH + 1) + "1" + ")" * (MAX_DEPTH + 1), "sin(" * 500 + "0" + ")" * 500,
            "2^" * 1000 + "1", "not " * 1000 + "1", "1+(" * 1000 + "1" + ")" * 1000]
    for text in deep:
        with pytest.raises(ExpressionError, match="nested"):
            evaluate(text)
    with pytest.raises(ExpressionError):
        evaluate("(" * 5000 + "1" + ")" * 5000)


def test_recursion_limit_is_a_backstop_too():
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(len(inspect.stack(0)) + 40)
    try:
        evaluate("(" * 60 + "1" + ")" * 60)
    except ExpressionError as exc:
        error = exc
    finally:
        sys.setrecursionlimit(limit)
    assert "nested too deeply" in str(error)


def test_long_unary_chains_are_fine():
    assert evaluate("-" * 4001 + "1") == -1.0


def test_overly_long_input_is_refused():
    text = "+".join(["1"] * (MAX_LENGTH // 2 + 1))
    with pytest.raises(ExpressionError, match="longer than"):
        evaluate(text)
    assert evaluate("+".join(["1"] * (MAX_LENGTH // 2))) == MAX_LENGTH // 2


@pytest.mark.parametrize("value", [None, 12, b"1+1"])
def test_non_text_is_refused(value):
    with pytest.raises(ExpressionError, match="must be text"):
        evaluate(value)


def _outcome_is_float_or_expression_error(text, variables=None, rng=None):
    try:
        value = evaluate(text, variables, rng)
    except ExpressionError:
        return
    assert type(value) is float and math.isfinite(value)


@settings(max_examples=600, deadline=None)
@given(st.text())
def test_arbitrary_text_gives_a_float_or_expression_error(text):
    _outcome_is_float_or_expression_error(text)


_EXPRESSION_ALPHABET = "0123456789.eE +-*/%^()<>=!&|,xyz_sinpoqrtlgamdu"


@settings(max_examples=1000, deadline=None)
@given(st.text(alphabet=_EXPRESSION_ALPHABET, max_size=40), st.integers(0, 2 ** 32))
def test_expression_like_text_gives_a_float_or_expression_error(text, seed):
    _outcome_is_float_or_expression_error(text, {"x": 1.5, "y": "-2", "z": 0}, np.random.default_rng(seed))


_PRECEDENCE = {"+": 1, "-": 1, "*": 2}


def _leaf():
    return st.integers(-9, 9).map(lambda n: (str(n), n, 3))


def _combine(children):
    def render(parts):
        (left, lvalue, lprec), op, (right, rvalue, rprec) = parts
        prec = _PRECEDENCE[op]
        left = left if lprec >= prec else f"({left})"
        right = right if rprec > prec else f"({right})"
        value = lvalue + rvalue if op == "+" else lvalue - rvalue if op == "-" else lvalue * rvalue
        return f"{left} {op} {right}", value, prec

    return st.tuples(children, st.sampled_from("+-*"), children).map(render)


@settings(max_examples=500, deadline=None)
@given(st.recursive(_leaf(), _combine, max_leaves=12))
def test_random_arithmetic_trees_match_their_reference_value(tree):
    text, value, _ = tree
    assert evaluate(text) == float(value), text
