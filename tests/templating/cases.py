"""Hand-written template cases for the differential tests against mci-py 1.2.

``COMPATIBLE``: templates on which mci-py follows its own documentation; a text tool
built by mcigen (``compat`` whitespace) must give mci-py's result byte for byte,
errors included.

``DEFECTS``: templates on which mci-py 1.2 is wrong. Each records mci-py's actual
outcome beside the one mcigen intends, so that a test can show both.

``TRIM``: templates with the output ``--whitespace trim`` must give (the outputs the
MCI documentation prints for its examples, among others).
"""

from __future__ import annotations

from typing import Any, NamedTuple


class Case(NamedTuple):
    id: str
    template: str
    props: dict[str, Any]
    env: dict[str, str]


class Outcome(NamedTuple):
    """The text of a result, and whether it is an error result."""

    text: str
    error: bool = False


class Defect(NamedTuple):
    id: str
    template: str
    props: dict[str, Any]
    env: dict[str, str]
    mci_py: Outcome
    """What mci-py 1.2 answers (recorded from it)."""
    intended: Outcome
    """What mcigen answers instead."""
    why: str


def _case(
    id: str,
    template: str,
    props: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> Case:
    return Case(id, template, props or {}, env or {})


# -- the documentation's examples (MCI schema reference, "Templating Syntax") ---------

SEED_FOR = "@for(i in range(0, 3))\nItem {{i}}\n@endfor"
SEED_FOREACH_ITEMS = "@foreach(item in props.items)\n- {{item}}\n@endforeach"
SEED_FOREACH_USERS = (
    "@foreach(user in props.users)\nName: {{user.name}}, Age: {{user.age}}\n@endforeach"
)
SEED_PREMIUM = (
    "@if(props.premium)\nYou have premium access!\n@else\n"
    "Upgrade to premium for more features.\n@endif"
)
SEED_STATUS = (
    '@if(props.status == "active")\nStatus: Active\n'
    '@elseif(props.status == "pending")\nStatus: Pending approval\n'
    "@else\nStatus: Inactive\n@endif"
)
SEED_AGE = (
    "@if(props.age > 18)\nAdult content available\n@else\nRestricted content\n@endif"
)
SEED_REPORT = (
    "Report for {{props.username}}\n@if(props.premium)Premium features enabled"
    "@else Standard features available @endif"
)
SEED_MESSAGE = (
    "Hello {{props.username}}! This message was generated on {{env.CURRENT_DATE}}."
)
SEED_ITEMS = {"items": ["Apple", "Banana", "Cherry"]}
SEED_USERS = {"users": [{"name": "Alice", "age": 30}, {"name": "Bob", "age": 25}]}

_SEEDS = [
    _case("seed_for", SEED_FOR),
    _case("seed_foreach_items", SEED_FOREACH_ITEMS, SEED_ITEMS),
    _case("seed_foreach_users", SEED_FOREACH_USERS, SEED_USERS),
    _case("seed_premium_true", SEED_PREMIUM, {"premium": True}),
    _case("seed_premium_false", SEED_PREMIUM, {"premium": False}),
    _case("seed_premium_missing", SEED_PREMIUM),
    _case("seed_status_active", SEED_STATUS, {"status": "active"}),
    _case("seed_status_pending", SEED_STATUS, {"status": "pending"}),
    _case("seed_age_adult", SEED_AGE, {"age": 30}),
    _case("seed_age_child", SEED_AGE, {"age": 12}),
    _case("seed_age_boundary", SEED_AGE, {"age": 18}),
    _case("seed_age_float", SEED_AGE, {"age": 18.5}),
    _case("seed_age_string", SEED_AGE, {"age": "30"}),
    _case("seed_report_premium", SEED_REPORT, {"username": "ann", "premium": True}),
    _case("seed_report_standard", SEED_REPORT, {"username": "bo", "premium": False}),
    _case("seed_message", SEED_MESSAGE, {"username": "Ann"}, {"CURRENT_DATE": "d1"}),
    _case("seed_message_no_env", SEED_MESSAGE, {"username": "Ann"}),
    _case(
        "seed_report_path",
        "./templates/report-{{props.report_id}}.txt",
        {"report_id": 42},
    ),
    _case(
        "seed_placeholder_list",
        "{{props.location}} {{env.API_KEY}} {{input.username}} {{props.user.name}}",
        {"location": "Berlin", "username": "u", "user": {"name": "Nia"}},
        {"API_KEY": "k-1"},
    ),
]

# -- placeholders -------------------------------------------------------------------

_PLACEHOLDERS = [
    _case("plain_text", "Hello, world.\nNo templates here."),
    _case("empty_template", ""),
    _case("whitespace_only_template", "  \n\t \n"),
    _case("placeholder_spaced", "[{{ props.name }}][{{props.name}}]", {"name": "x"}),
    _case(
        "placeholder_str_of_values",
        "{{props.l}} {{props.o}} {{props.n}} {{props.t}} {{props.f}} {{props.i}}",
        {
            "l": ["a", 1, None],
            "o": {"k": [1, 2]},
            "n": None,
            "t": True,
            "f": 0.1,
            "i": -3,
        },
    ),
    _case(
        "placeholder_fallback_chain",
        "{{ props.missing | env.USER | 'anon' }}/{{ props.missing | `tick` }}",
        env={"USER": "root"},
    ),
    _case(
        "placeholder_fallback_literal_spaces", "[{{ props.missing | '  padded  ' }}]"
    ),
    _case("placeholder_input_alias", "{{input.a}}={{props.a}}", {"a": "same"}),
    _case("placeholder_missing_is_error", "before {{props.missing}} after", {"a": 1}),
    _case("placeholder_non_dict_is_error", "{{props.s.deeper}}", {"s": "flat"}),
    _case(
        "placeholder_unicode",
        "Grüße, {{props.name}} — 東京 ✓ {{env.CITY}}",
        {"name": "Zoë"},
        {"CITY": "Zürich"},
    ),
    _case(
        "placeholder_value_with_braces_is_not_reexpanded",
        "{{props.v}}",
        {"v": "{{env.SECRET}} @if(props.x)y@endif"},
        {"SECRET": "s3cret"},
    ),
    _case(
        "native_placeholder_is_literal_in_text",
        "{!! props.x !!} {!!props.x!!}",
        {"x": 1},
    ),
    _case("single_braces_are_literal", "{props.x} { {props.x} } {x}", {"x": 1}),
    _case("at_before_placeholder", "@{{props.handle}}", {"handle": "ann"}),
    _case("crlf_and_tabs", "a\r\n\t{{props.x}}\r\n", {"x": "v"}),
]

# -- @for ---------------------------------------------------------------------------

_FOR = [
    _case("for_inline", "@for(i in range(0, 3)){{i}},@endfor"),
    _case("for_offset_range", "@for(i in range(2, 5))[{{i}}]@endfor"),
    _case("for_single", "@for(i in range(7, 8))<{{i}}>@endfor"),
    _case("for_empty_range", "a@for(i in range(0, 0))never@endfor b"),
    _case("for_reversed_range_is_empty", "a@for(i in range(3, 1))never@endfor b"),
    _case("for_spaces_in_header", "@for( i in range( 0 , 2 ) )[{{ i }}]@endfor"),
    _case("for_space_before_paren", "@for (i in range(0, 2)){{i}}@endfor"),
    _case(
        "for_var_spacing_variants", "@for(n in range(1, 3)){{n}}{{ n}}{{n }};@endfor"
    ),
    _case("for_body_without_placeholder", "@for(i in range(0, 3))ab@endfor"),
    _case(
        "for_body_with_props",
        "@for(i in range(0, 2)){{props.word}}-{{i}} @endfor",
        {"word": "w"},
    ),
    _case(
        "for_body_fallback",
        "@for(i in range(0, 2)){{props.missing | 'fb'}}{{i}}@endfor",
    ),
    _case(
        "for_own_lines_in_text",
        "Header\n@for(i in range(1, 3))\n  line {{i}}\n@endfor\nFooter\n",
    ),
    _case(
        "for_sequential_same_var",
        "@for(i in range(0, 2)){{i}}@endfor|@for(i in range(5, 7)){{i}}@endfor",
    ),
    _case(
        "for_sequential_other_var",
        "@for(i in range(0, 2))a{{i}}@endfor @for(j in range(0, 2))b{{j}}@endfor",
    ),
    _case("for_ten", "@for(idx in range(0, 10)){{idx}}@endfor"),
    _case("for_crlf_body", "@for(i in range(0, 2))\r\nrow {{i}}\r\n@endfor"),
    _case(
        "for_props_path_named_like_var",
        "@for(i in range(0, 2)){{i}}:{{props.i}} @endfor",
        {"i": "prop"},
    ),
    _case(
        "for_missing_placeholder_in_empty_loop",
        "@for(i in range(2, 2)){{props.missing}}@endfor ok",
    ),
    _case(
        "for_missing_placeholder_in_body_is_error",
        "@for(i in range(0, 2)){{props.missing}}@endfor",
    ),
    _case("for_unicode_body", "@for(i in range(0, 2))→{{i}}★@endfor"),
]

# -- @foreach over lists ------------------------------------------------------------

_FOREACH_LIST = [
    _case(
        "foreach_inline", "@foreach(x in props.l){{x}},@endforeach", {"l": ["a", "b"]}
    ),
    _case("foreach_empty_list", "[@foreach(x in props.l){{x}}@endforeach]", {"l": []}),
    _case(
        "foreach_scalar_types",
        "@foreach(x in props.l)<{{x}}>@endforeach",
        {"l": [1, -2.5, True, False, None, 0, ""]},
    ),
    _case(
        "foreach_nested_lists",
        "@foreach(x in props.l){{x}};@endforeach",
        {"l": [["a", 1], [], [None]]},
    ),
    _case(
        "foreach_unicode_items",
        "@foreach(w in props.l)«{{w}}» @endforeach",
        {"l": ["Zoë", "東京", "naïve café"]},
    ),
    _case(
        "foreach_items_with_punctuation",
        "@foreach(x in props.l){{x}}\n@endforeach",
        {"l": ["$5 & 10%", "a|b", 'it\'s "quoted"', "(paren) = <x>", "e-mail.org"]},
    ),
    _case(
        "foreach_spaced_placeholder",
        "@foreach(item in props.l)[{{ item }}]@endforeach",
        {"l": ["a", "b"]},
    ),
    _case(
        "foreach_spaces_in_header",
        "@foreach( item in props.l )({{item}})@endforeach",
        {"l": [1, 2]},
    ),
    _case(
        "foreach_body_with_props",
        "@foreach(x in props.l){{props.prefix}}{{x}} @endforeach",
        {"l": ["a", "b"], "prefix": "#"},
    ),
    _case(
        "foreach_body_with_fallback",
        "@foreach(x in props.l){{x}}={{ props.missing | env.DEF | 'none' }};@endforeach",
        {"l": ["a", "b"]},
        {"DEF": "d"},
    ),
    _case(
        "foreach_input_alias",
        "@foreach(x in input.l){{x}}@endforeach",
        {"l": ["i", "n"]},
    ),
    _case(
        "foreach_deep_path",
        "@foreach(x in props.data.items){{x}} @endforeach",
        {"data": {"items": ["p", "q"]}},
    ),
    _case(
        "foreach_sequential",
        "@foreach(x in props.a){{x}}@endforeach-@foreach(x in props.b){{x}}@endforeach",
        {"a": [1, 2], "b": [3]},
    ),
    _case(
        "foreach_own_lines_in_text",
        "Fruits:\n@foreach(f in props.l)\n  * {{f}}\n@endforeach\nEnd.",
        {"l": ["apple", "pear"]},
    ),
    _case(
        "foreach_var_named_i",
        "@foreach(i in props.l){{i}}@endforeach",
        {"l": ["x", "y"]},
    ),
    _case(
        "foreach_missing_placeholder_in_empty_loop",
        "@foreach(x in props.l){{props.missing}}@endforeach ok",
        {"l": []},
    ),
    _case(
        "foreach_then_for",
        "@foreach(x in props.l){{x}}@endforeach/@for(i in range(0, 2)){{i}}@endfor",
        {"l": ["a"]},
    ),
    _case(
        "for_then_foreach",
        "@for(i in range(0, 2)){{i}}@endfor/@foreach(x in props.l){{x}}@endforeach",
        {"l": ["a"]},
    ),
]

# -- @foreach over lists of objects and over objects --------------------------------

_FOREACH_OBJECTS = [
    _case(
        "foreach_objects_fields",
        "@foreach(u in props.users){{u.name}} ({{ u.role }}), @endforeach",
        {"users": [{"name": "Ann", "role": "admin"}, {"name": "Bo", "role": "dev"}]},
    ),
    _case(
        "foreach_objects_typed_fields",
        "@foreach(r in props.rows){{r.id}}:{{r.ok}}:{{r.score}}:{{r.tags}}\n@endforeach",
        {
            "rows": [
                {"id": 1, "ok": True, "score": 0.5, "tags": ["a", "b"]},
                {"id": 2, "ok": None, "score": -1, "tags": []},
            ]
        },
    ),
    _case(
        "foreach_objects_some_fields",
        "@foreach(u in props.users){{u.name}};@endforeach",
        {"users": [{"name": "Ann", "extra": 1}, {"name": "Bo"}]},
    ),
    _case(
        "foreach_objects_field_named_key",
        "@foreach(u in props.l){{u.key}}={{u.value}} @endforeach",
        {"l": [{"key": "k1", "value": "v1"}]},
    ),
    _case(
        "foreach_dict_key_and_value",
        "@foreach(e in props.config){{e.key}}={{e}}\n@endforeach",
        {"config": {"host": "localhost", "port": 8080, "debug": False}},
    ),
    _case(
        "foreach_dict_spaced",
        "@foreach(e in props.o)[{{ e.key }}|{{ e }}]@endforeach",
        {"o": {"a": 1}},
    ),
    _case(
        "foreach_dict_empty",
        "<@foreach(e in props.o){{e.key}}@endforeach>",
        {"o": {}},
    ),
    _case(
        "foreach_dict_value_types",
        "@foreach(e in props.o){{e.key}}:{{e}};@endforeach",
        {"o": {"n": None, "l": [1, "x"], "f": 2.0, "t": True}},
    ),
    _case(
        "foreach_dict_unicode_keys",
        "@foreach(e in props.o){{e.key}}→{{e}} @endforeach",
        {"o": {"größe": "L", "naïve key": "ü"}},
    ),
    _case(
        "foreach_over_env",
        "@foreach(v in env){{v.key}}={{v}};@endforeach",
        env={"A": "1", "B": "two"},
    ),
    _case(
        "foreach_over_props",
        "@foreach(p in props){{p.key}}:{{p}} @endforeach",
        {"first": 1, "second": "two"},
    ),
    _case(
        "foreach_over_input",
        "@foreach(p in input){{p.key}}@endforeach",
        {"a": 1, "b": 2},
    ),
]

# -- @foreach errors ----------------------------------------------------------------

_FOREACH_ERRORS = [
    _case("foreach_missing_path", "a @foreach(x in props.items){{x}}@endforeach b"),
    _case(
        "foreach_missing_nested_path",
        "@foreach(x in props.data.items){{x}}@endforeach",
        {"data": {}},
    ),
    _case(
        "foreach_through_non_dict",
        "@foreach(x in props.s.items){{x}}@endforeach",
        {"s": "text"},
    ),
    _case(
        "foreach_over_string", "@foreach(x in props.s){{x}}@endforeach", {"s": "abc"}
    ),
    _case("foreach_over_int", "@foreach(x in props.n){{x}}@endforeach", {"n": 3}),
    _case("foreach_over_float", "@foreach(x in props.n){{x}}@endforeach", {"n": 1.5}),
    _case("foreach_over_bool", "@foreach(x in props.b){{x}}@endforeach", {"b": True}),
    _case("foreach_over_null", "@foreach(x in props.z){{x}}@endforeach", {"z": None}),
    _case("foreach_over_missing_env", "@foreach(x in env.LIST){{x}}@endforeach"),
    _case(
        "foreach_over_env_string",
        "@foreach(x in env.LIST){{x}}@endforeach",
        env={"LIST": "a,b"},
    ),
]

# -- @if truthiness -----------------------------------------------------------------

_TRUTHY_VALUES: list[tuple[str, Any]] = [
    ("true", True),
    ("false", False),
    ("zero", 0),
    ("one", 1),
    ("negative", -1),
    ("zero_float", 0.0),
    ("half", 0.5),
    ("empty_string", ""),
    ("string_false", "false"),
    ("string_zero", "0"),
    ("space_string", " "),
    ("empty_list", []),
    ("list_of_zero", [0]),
    ("empty_object", {}),
    ("object", {"a": None}),
    ("null", None),
]

_TRUTHY = [
    _case(f"truthy_{name}", "@if(props.v)yes@else no@endif", {"v": value})
    for name, value in _TRUTHY_VALUES
] + [
    _case("truthy_missing", "@if(props.v)yes@else no@endif"),
    _case("truthy_missing_nested", "@if(props.a.b)yes@else no@endif", {"a": {}}),
    _case("truthy_through_non_dict", "@if(props.a.b)yes@else no@endif", {"a": "s"}),
    _case("truthy_nested_true", "@if(props.a.b)yes@else no@endif", {"a": {"b": 1}}),
    _case("truthy_env_set", "@if(env.FLAG)on@else off@endif", env={"FLAG": "x"}),
    _case("truthy_env_empty", "@if(env.FLAG)on@else off@endif", env={"FLAG": ""}),
    _case("truthy_env_unset", "@if(env.FLAG)on@else off@endif"),
    _case("truthy_input_alias", "@if(input.v)on@endif", {"v": 1}),
    _case("truthy_props_root", "@if(props)some@else none@endif", {"a": 1}),
    _case("truthy_props_root_empty", "@if(props)some@else none@endif"),
    _case("truthy_spaces_in_parens", "@if( props.v )yes@endif", {"v": 1}),
    _case("truthy_space_before_paren", "@if (props.v)yes@endif", {"v": 1}),
]

# -- conditions with operators ------------------------------------------------------


def _cond(
    id: str,
    condition: str,
    props: dict[str, Any] | None = None,
    env: dict[str, str] | None = None,
) -> Case:
    return _case(f"cond_{id}", f"@if({condition})T@else F@endif", props, env)


_CONDITIONS = [
    _cond("eq_double_quotes_true", 'props.s == "abc"', {"s": "abc"}),
    _cond("eq_double_quotes_false", 'props.s == "abc"', {"s": "abd"}),
    _cond("eq_single_quotes", "props.s == 'abc'", {"s": "abc"}),
    _cond("eq_no_spaces", 'props.s=="abc"', {"s": "abc"}),
    _cond("eq_wide_spaces", 'props.s   ==   "abc"', {"s": "abc"}),
    _cond("eq_quoted_spaces", 'props.s == "hello world"', {"s": "hello world"}),
    _cond("eq_quoted_empty", 'props.s == ""', {"s": ""}),
    _cond("eq_quoted_unicode", 'props.city == "München"', {"city": "München"}),
    _cond("eq_quoted_angle_brackets", 'props.tag == "<b>"', {"tag": "<b>"}),
    _cond("eq_quoted_digits_vs_int", 'props.n == "5"', {"n": 5}),
    _cond("eq_quoted_digits_vs_str", 'props.n == "5"', {"n": "5"}),
    _cond("eq_int", "props.n == 5", {"n": 5}),
    _cond("eq_int_vs_str_value", "props.n == 5", {"n": "5"}),
    _cond("eq_int_vs_float_value", "props.n == 5", {"n": 5.0}),
    _cond("eq_float_literal", "props.n == 2.5", {"n": 2.5}),
    _cond("eq_float_literal_vs_int", "props.n == 3.0", {"n": 3}),
    _cond("eq_negative", "props.n == -4", {"n": -4}),
    _cond("eq_bool_vs_one", "props.b == 1", {"b": True}),
    _cond("eq_bool_vs_string", 'props.b == "True"', {"b": True}),
    _cond("eq_null_vs_string", 'props.z == "None"', {"z": None}),
    _cond("eq_two_paths_true", "props.a == props.b", {"a": "x", "b": "x"}),
    _cond("eq_two_paths_false", "props.a == props.b", {"a": "x", "b": "y"}),
    _cond("eq_two_lists", "props.a == props.b", {"a": [1, "x"], "b": [1, "x"]}),
    _cond("eq_path_vs_missing_path", "props.a == props.nope", {"a": "x"}),
    _cond("eq_env", 'env.MODE == "prod"', env={"MODE": "prod"}),
    _cond("eq_env_vs_int", "env.PORT == 80", env={"PORT": "80"}),
    _cond("eq_missing_left_is_its_text", 'props.nope == "props.nope"'),
    _cond("eq_missing_left_other_text", 'props.nope == "x"'),
    _cond("ne_true", 'props.s != "x"', {"s": "y"}),
    _cond("ne_false", 'props.s != "x"', {"s": "x"}),
    _cond("ne_single_quotes", "props.s != 'x'", {"s": "x"}),
    _cond("ne_int", "props.n != 0", {"n": 0}),
    _cond("ne_missing_left", 'props.nope != "x"'),
    _cond("ne_two_paths", "props.a != props.b", {"a": 1, "b": 2}),
    _cond("gt_true", "props.n > 10", {"n": 11}),
    _cond("gt_equal", "props.n > 10", {"n": 10}),
    _cond("gt_float_value", "props.n > 10", {"n": 10.5}),
    _cond("gt_float_literal", "props.n > 0.5", {"n": 1}),
    _cond("gt_negative", "props.n > -1", {"n": 0}),
    _cond("gt_no_spaces", "props.n>3", {"n": 4}),
    _cond("gt_path", "props.a > props.b", {"a": 2, "b": 1}),
    _cond("gt_bool_value", "props.b > 0", {"b": True}),
    _cond("lt_true", "props.n < 100", {"n": 99}),
    _cond("lt_false", "props.n < 100", {"n": 100}),
    _cond("lt_float", "props.n < 2.25", {"n": 2.2}),
    _cond("ge_equal", "props.n >= 18", {"n": 18}),
    _cond("ge_less", "props.n >= 18", {"n": 17}),
    _cond("ge_float_equal", "props.n >= 1.5", {"n": 1.5}),
    _cond("le_equal", "props.n <= 3", {"n": 3}),
    _cond("le_greater", "props.n <= 3", {"n": 4}),
    _cond("le_path", "props.a <= props.b", {"a": 1.5, "b": 1.5}),
    # ordering needs two numbers: otherwise an error result with mci-py's message
    _cond("gt_string_value_is_error", "props.s > 3", {"s": "5"}),
    _cond("lt_quoted_right_is_error", 'props.n < "3"', {"n": 1}),
    _cond("ge_null_is_error", "props.z >= 1", {"z": None}),
    _cond("le_list_is_error", "props.l <= 1", {"l": [1]}),
    _cond("gt_dict_is_error", "props.o > 1", {"o": {}}),
    _cond("gt_missing_left_is_error", "props.nope > 3"),
    _cond("lt_missing_right_path_is_error", "props.n < props.nope", {"n": 1}),
    _cond("ge_env_is_error", "env.PORT >= 80", env={"PORT": "8080"}),
    _cond("lt_two_strings_is_error", 'props.s < "b"', {"s": "a"}),
]

# -- @if / @elseif / @else structure and whitespace ----------------------------------

ELSEIF_CHAIN = "@if(props.n > 10) big @elseif(props.n > 5) medium @elseif(props.n > 0) small @endif"
ELSEIF_LINES = (
    'Level:\n@if(props.lvl == "a")\n  Alpha\n@elseif(props.lvl == "b")\n  Beta\n'
    "@elseif(props.lvl == 'c')\n  Gamma\n@endif\nDone"
)

_IF_STRUCTURE = [
    _case("if_alone_true_stripped", "[@if(props.on)  yes  @endif]", {"on": True}),
    _case("if_alone_false", "[@if(props.on)  yes  @endif]", {"on": False}),
    _case("if_alone_own_lines", "A\n@if(props.on)\nyes\n@endif\nB", {"on": True}),
    _case("if_alone_own_lines_false", "A\n@if(props.on)\nyes\n@endif\nB", {"on": 0}),
    _case(
        "if_alone_inner_newlines_kept",
        "@if(props.on)\n\n one \n two \n\n@endif",
        {"on": 1},
    ),
    _case(
        "if_else_true_verbatim", "[@if(props.on)  yes  @else  no  @endif]", {"on": 1}
    ),
    _case(
        "if_else_false_stripped", "[@if(props.on)  yes  @else  no  @endif]", {"on": 0}
    ),
    _case(
        "if_else_own_lines_true",
        "A\n@if(props.on)\nyes\n@else\nno\n@endif\nB",
        {"on": 1},
    ),
    _case(
        "if_else_own_lines_false",
        "A\n@if(props.on)\nyes\n@else\nno\n@endif\nB",
        {"on": 0},
    ),
    _case("if_else_empty_branches", "<@if(props.on)@else@endif>", {"on": 1}),
    _case("if_else_empty_branches_false", "<@if(props.on)@else@endif>", {"on": 0}),
    _case("if_empty_body", "<@if(props.on)@endif>", {"on": 1}),
    _case("if_whitespace_body", "<@if(props.on) \n\t @endif>", {"on": 1}),
    _case("if_text_after_endif", "@if(props.on)x@endif tail", {"on": 1}),
    _case(
        "if_two_in_a_row", "@if(props.a)A@endif@if(props.b)B@endif.", {"a": 1, "b": 1}
    ),
    _case(
        "if_two_on_lines",
        "@if(props.a)\nA\n@else\nnot A\n@endif\n@if(props.b)\nB\n@else\nnot B\n@endif\n",
        {"a": 1, "b": 0},
    ),
    _case("if_outer_whitespace_kept", "  \n@if(props.a) x @endif\n  ", {"a": 1}),
    _case(
        "elseif_first",
        ELSEIF_CHAIN,
        {"n": 11},
    ),
    _case("elseif_second", ELSEIF_CHAIN, {"n": 6}),
    _case("elseif_third", ELSEIF_CHAIN, {"n": 1}),
    _case("elseif_none_matches", ELSEIF_CHAIN, {"n": -1}),
    _case("elseif_lines_a", ELSEIF_LINES, {"lvl": "a"}),
    _case("elseif_lines_b", ELSEIF_LINES, {"lvl": "b"}),
    _case("elseif_lines_c", ELSEIF_LINES, {"lvl": "c"}),
    _case("elseif_lines_none", ELSEIF_LINES, {"lvl": "z"}),
    _case(
        "elseif_with_else_if_taken",
        '@if(props.s == "a") A @elseif(props.s == "b") B @else C @endif',
        {"s": "a"},
    ),
    _case(
        "elseif_with_else_elseif_taken",
        '@if(props.s == "a") A @elseif(props.s == "b") B @else C @endif',
        {"s": "b"},
    ),
    _case(
        "elseif_truthy",
        "@if(props.a)A@elseif(props.b)B@endif",
        {"a": "", "b": "x"},
    ),
    _case(
        "elseif_error_only_when_reached",
        "@if(props.a)A@elseif(props.s > 1)B@endif",
        {"a": 1, "s": "str"},
    ),
    _case(
        "elseif_error_when_reached",
        "@if(props.a)A@elseif(props.s > 1)B@endif",
        {"a": 0, "s": "str"},
    ),
    _case(
        "if_value_whitespace_kept_at_edges",
        "[@if(props.on) {{props.s}} @endif]",
        {"on": 1, "s": "  v  "},
    ),
    _case(
        "else_value_whitespace_kept_at_edges",
        "[@if(props.on)x@else {{props.s}} @endif]",
        {"on": 0, "s": "\n v \n"},
    ),
    _case(
        "elseif_literal_fallback_spaces_kept",
        "[@if(props.on)x@elseif(props.other) {{props.nope | '  lit  '}} @endif]",
        {"on": 0, "other": 1},
    ),
    _case(
        "if_empty_value_at_edge",
        "[@if(props.on){{props.e}} tail @endif]",
        {"on": 1, "e": ""},
    ),
]

# -- placeholders inside branches and loops ------------------------------------------

_BRANCH_PLACEHOLDERS = [
    _case(
        "if_branch_fallback",
        "@if(props.on){{props.missing | 'fallback'}}@endif",
        {"on": 1},
    ),
    _case(
        "if_false_branch_missing_placeholder_ok",
        "@if(props.on){{props.missing}}@else fine@endif",
        {"on": 0},
    ),
    _case(
        "if_true_branch_missing_placeholder_error",
        "@if(props.on){{props.missing}}@else fine@endif",
        {"on": 1},
    ),
    _case(
        "else_branch_missing_placeholder_error",
        "@if(props.on)fine@else {{props.missing}}@endif",
        {"on": 0},
    ),
    _case(
        "elseif_branch_placeholders",
        '@if(props.k == "x")X@elseif(props.k == "y")Y={{props.k}}/{{env.E | \'e\'}}@endif',
        {"k": "y"},
    ),
    _case(
        "placeholders_around_blocks",
        "{{props.a}}@if(props.on){{props.b}}@endif{{props.c}}",
        {"a": "1", "b": "2", "c": "3", "on": True},
    ),
]

# -- loops inside ifs, ifs inside loops, a @for inside a @foreach ---------------------

LIST_IN_IF = (
    "Items:\n@if(props.show)\n@foreach(x in props.l)\n- {{x}}\n@endforeach\n"
    "@else\n(hidden)\n@endif\nend"
)

_COMBINED = [
    _case("foreach_in_if_true", LIST_IN_IF, {"show": True, "l": ["a", "b"]}),
    _case("foreach_in_if_false", LIST_IN_IF, {"show": False, "l": ["a", "b"]}),
    _case(
        "foreach_in_lone_if",
        "@if(props.show)\n@foreach(x in props.l)\n- {{x}}\n@endforeach\n@endif",
        {"show": True, "l": ["a", "b"]},
    ),
    _case(
        "for_in_else",
        "@if(props.on)on@else @for(i in range(0, 3)){{i}} @endfor @endif",
        {"on": False},
    ),
    _case(
        "for_in_elseif",
        "@if(props.a)A@elseif(props.b)@for(i in range(0, 2))<{{i}}>@endfor@endif",
        {"a": 0, "b": 1},
    ),
    _case(
        "foreach_dict_in_if",
        "@if(props.o)@foreach(e in props.o){{e.key}}={{e}} @endforeach@endif",
        {"o": {"k": "v", "n": 1}},
    ),
    _case(
        "if_in_for",
        "@for(i in range(0, 3))@if(props.on)[{{i}}]@else-@endif@endfor",
        {"on": True},
    ),
    _case(
        "if_in_for_false",
        "@for(i in range(0, 3))@if(props.on)[{{i}}]@else-@endif@endfor",
        {"on": False},
    ),
    _case(
        "if_in_foreach_own_lines",
        "@foreach(x in props.l)\n@if(props.bullets)\n* {{x}}\n@else\n{{x}}\n@endif\n@endforeach",
        {"l": ["a", "b"], "bullets": True},
    ),
    _case(
        "if_in_foreach_own_lines_else",
        "@foreach(x in props.l)\n@if(props.bullets)\n* {{x}}\n@else\n{{x}}\n@endif\n@endforeach",
        {"l": ["a", "b"], "bullets": False},
    ),
    _case(
        "elseif_in_foreach_objects",
        '@foreach(u in props.users){{u.name}}:@if(props.mode == "short")S'
        '@elseif(props.mode == "long")L {{u.role}}@endif;@endforeach',
        {
            "users": [{"name": "a", "role": "r1"}, {"name": "b", "role": "r2"}],
            "mode": "long",
        },
    ),
    _case(
        "comparison_error_in_loop",
        "@for(i in range(0, 2))@if(props.s > 1)x@endif@endfor",
        {"s": "a"},
    ),
    _case(
        "for_in_foreach",
        "@foreach(x in props.l)@for(i in range(0, 2)){{x}}{{i}} @endfor|@endforeach",
        {"l": ["a", "b"]},
    ),
    _case(
        "for_in_foreach_objects",
        "@foreach(u in props.users){{u.name}}:@for(i in range(1, 3)){{i}}@endfor\n@endforeach",
        SEED_USERS,
    ),
    _case(
        "for_in_foreach_in_if",
        "@if(props.on)@foreach(x in props.l)@for(i in range(0, 2)){{x}}{{i}}@endfor @endforeach@endif",
        {"on": 1, "l": ["p", "q"]},
    ),
    _case(
        "if_in_for_in_foreach",
        "@foreach(x in props.l)@for(i in range(0, 2))@if(props.on){{x}}{{i}}@endif,@endfor@endforeach",
        {"on": 1, "l": ["p", "q"]},
    ),
    _case(
        "loop_in_if_stripped_edges",
        "[@if(props.on) @for(i in range(0, 2)) {{i}} @endfor @endif]",
        {"on": 1},
    ),
]

# -- text that looks like a directive but is not one ----------------------------------

_NOT_DIRECTIVES = [
    _case("email_address", "Write to user@example.com or admin@if.org", {}),
    _case(
        "directive_prefix_words", "@iffy @forever @format @foreachable @elsewhere", {}
    ),
    _case("keyword_without_paren", "use @if and @for and @foreach here", {}),
    _case("space_after_at", "@ if(props.a) x @ endif", {"a": 1}),
    _case("double_at", "@@ @@if", {}),
    _case("uppercase_keyword", "@IF(props.a)x@ENDIF", {"a": 1}),
    _case("stray_closers", "done @endif @endfor @endforeach @else", {}),
    _case("end_alone", "@end of text", {}),
    _case("handle_before_block", "@ann @if(props.a)hi@endif", {"a": 1}),
    _case("parens_in_text", "f(x) = (a + b) @if(props.a)(yes)@endif", {"a": 1}),
    _case(
        "directive_text_in_loop_values",
        "@foreach(x in props.l){{x}} @endforeach",
        {"l": ["if(x)", "endif", "for each"]},
    ),
]

COMPATIBLE: list[Case] = [
    *_SEEDS,
    *_PLACEHOLDERS,
    *_FOR,
    *_FOREACH_LIST,
    *_FOREACH_OBJECTS,
    *_FOREACH_ERRORS,
    *_TRUTHY,
    *_CONDITIONS,
    *_IF_STRUCTURE,
    *_BRANCH_PLACEHOLDERS,
    *_COMBINED,
    *_NOT_DIRECTIVES,
]

# -- where mci-py 1.2 is wrong: its outcome recorded beside the one mcigen intends ------


def _ok(text: str) -> Outcome:
    return Outcome(text)


def _error(text: str) -> Outcome:
    return Outcome(text, error=True)


def _unresolved(source: str, path: str, missing: str) -> Outcome:
    return _error(
        f"Failed to resolve placeholder '{{{{{source}}}}}': Could not resolve any "
        f"alternative. Tried: {source}. Errors: {source}: Path '{path}' not found in "
        f"context (missing '{missing}')"
    )


_NESTING = "its regex templating cannot nest blocks of one kind"
_LOOP_VARS = "loop variables exist only as text substituted into {{var}} placeholders"
_REPARSE = "it substitutes loop values into the template text and then parses them"

DEFECTS: list[Defect] = [
    Defect(
        "for_in_for",
        "@for(i in range(0, 2))@for(j in range(0, 2)){{i}}{{j}} @endfor@endfor",
        {},
        {},
        _unresolved("j", "j", "j"),
        _ok("00 01 10 11 "),
        _NESTING,
    ),
    Defect(
        "foreach_in_foreach",
        "@foreach(r in props.rows)@foreach(c in props.cols){{r}}{{c}} @endforeach"
        "@endforeach",
        {"rows": ["a", "b"], "cols": [1, 2]},
        {},
        _unresolved("c", "c", "c"),
        _ok("a1 a2 b1 b2 "),
        _NESTING,
    ),
    Defect(
        "foreach_in_for",
        "@for(i in range(0, 2))@foreach(x in props.l){{i}}{{x}} @endforeach@endfor",
        {"l": ["a", "b"]},
        {},
        _unresolved("x", "x", "x"),
        _ok("0a 0b 1a 1b "),
        "its @for pattern ends at the '@endfor' inside '@endforeach'",
    ),
    Defect(
        "if_in_if",
        "@if(props.a)A@if(props.b)B@endif.@endif",
        {"a": True, "b": True},
        {},
        _ok("A@if(props.b)B.@endif"),
        _ok("AB."),
        _NESTING,
    ),
    Defect(
        "if_in_if_outer_false",
        "@if(props.a)A@if(props.b)B@endif.@endif",
        {"a": False, "b": True},
        {},
        _ok(".@endif"),
        _ok(""),
        _NESTING,
    ),
    Defect(
        "if_in_else",
        "@if(props.a)A@else@if(props.b)B@endif.@endif",
        {"a": False, "b": True},
        {},
        _ok("@if(props.b)B.@endif"),
        _ok("B."),
        _NESTING,
    ),
    Defect(
        "for_var_in_condition",
        "@for(i in range(0, 3))@if(i == 1)one@else{{i}}@endif @endfor",
        {},
        {},
        _ok("0 1 2 "),
        _ok("0 one 2 "),
        _LOOP_VARS,
    ),
    Defect(
        "foreach_var_in_condition",
        '@foreach(x in props.l)@if(x == "b")[B]@else{{x}}@endif@endforeach',
        {"l": ["a", "b", "c"]},
        {},
        _ok("abc"),
        _ok("a[B]c"),
        _LOOP_VARS,
    ),
    Defect(
        "foreach_field_in_condition",
        "@foreach(u in props.users)@if(u.admin)*@endif{{u.name}} @endforeach",
        {"users": [{"name": "ann", "admin": True}, {"name": "bo", "admin": False}]},
        {},
        _ok("ann bo "),
        _ok("*ann bo "),
        _LOOP_VARS,
    ),
    Defect(
        "foreach_var_in_fallback",
        "@foreach(x in props.l){{ x | 'none' }} @endforeach",
        {"l": ["a", "b"]},
        {},
        _ok("none none "),
        _ok("a b "),
        _LOOP_VARS,
    ),
    Defect(
        "for_var_in_fallback",
        "@for(i in range(0, 2)){{ i | 'x' }}@endfor",
        {},
        {},
        _ok("xx"),
        _ok("01"),
        _LOOP_VARS,
    ),
    Defect(
        "foreach_field_in_fallback",
        "@foreach(u in props.users){{u.email | 'n/a'}};@endforeach",
        {"users": [{"email": "a@x.org"}, {}]},
        {},
        _ok("n/a;n/a;"),
        _ok("a@x.org;n/a;"),
        _LOOP_VARS,
    ),
    Defect(
        "foreach_deeper_path",
        "@foreach(x in props.l){{x.a.b}};@endforeach",
        {"l": [{"a": {"b": 1}}]},
        {},
        _unresolved("x.a.b", "x.a.b", "x"),
        _ok("1;"),
        _LOOP_VARS,
    ),
    Defect(
        "foreach_object_item_whole",
        "@foreach(x in props.l){{x}};@endforeach",
        {"l": [{"k": 1}]},
        {},
        _unresolved("x", "x", "x"),
        _ok("{'k': 1};"),
        _LOOP_VARS,
    ),
    Defect(
        "foreach_dict_value_field",
        "@foreach(e in props.o){{e.key}}:{{e.name}};@endforeach",
        {"o": {"u1": {"name": "ann"}}},
        {},
        _unresolved("e.name", "e.name", "e"),
        _ok("u1:ann;"),
        _LOOP_VARS,
    ),
    Defect(
        "foreach_missing_field",
        "@foreach(u in props.users){{u.name}};@endforeach",
        {"users": [{"name": "a"}, {}]},
        {},
        _unresolved("u.name", "u.name", "u"),
        _unresolved("u.name", "u.name", "name"),
        _LOOP_VARS + " (its message blames the loop variable, not the field)",
    ),
    Defect(
        "foreach_scalar_item_field",
        "@foreach(x in props.l){{x.name}};@endforeach",
        {"l": ["a"]},
        {},
        _unresolved("x.name", "x.name", "x"),
        _error(
            "Failed to resolve placeholder '{{x.name}}': Could not resolve any "
            "alternative. Tried: x.name. Errors: x.name: Cannot access 'name' on "
            "non-dict value at 'x'"
        ),
        _LOOP_VARS + " (its message blames the loop variable, not the item)",
    ),
    Defect(
        "else_after_elseif",
        '@if(props.s == "a")A@elseif(props.s == "b")B@else C @endif',
        {"s": "z"},
        {},
        _ok(""),
        _ok("C"),
        "it drops an @else that follows an @elseif",
    ),
    Defect(
        "seed_status_inactive",
        SEED_STATUS,
        {"status": "inactive"},
        {},
        _ok(""),
        _ok("Status: Inactive"),
        "it drops an @else that follows an @elseif (the documentation's own example)",
    ),
    Defect(
        "loop_value_with_placeholder",
        "@foreach(x in props.l){{x}};@endforeach",
        {"l": ["{{env.SECRET}}"]},
        {"SECRET": "s3cret"},
        _ok("s3cret;"),
        _ok("{{env.SECRET}};"),
        _REPARSE,
    ),
    Defect(
        "loop_value_with_directive",
        "@foreach(x in props.l){{x}};@endforeach",
        {"l": ["@if(props.l)yes@endif"]},
        {},
        _ok("yes;"),
        _ok("@if(props.l)yes@endif;"),
        _REPARSE,
    ),
    Defect(
        "object_item_field_with_placeholder",
        "@foreach(u in props.users){{u.name}};@endforeach",
        {"users": [{"name": "{{env.SECRET}}"}]},
        {"SECRET": "s3cret"},
        _ok("s3cret;"),
        _ok("{{env.SECRET}};"),
        _REPARSE,
    ),
    Defect(
        "dict_value_with_placeholder",
        "@foreach(e in props.o){{e.key}}={{e}};@endforeach",
        {"o": {"k": "{{env.SECRET}}"}},
        {"SECRET": "s3cret"},
        _ok("k=s3cret;"),
        _ok("k={{env.SECRET}};"),
        _REPARSE,
    ),
    Defect(
        "loop_value_with_backslashes",
        "@foreach(x in props.l){{x}};@endforeach",
        {"l": ["C:\\temp", "a\\\\b"]},
        {},
        _ok("C:\temp;a\\b;"),
        _ok("C:\\temp;a\\\\b;"),
        "it passes loop values to re.sub as replacement templates",
    ),
    Defect(
        "loop_value_with_bad_escape",
        "@foreach(x in props.l){{x}};@endforeach",
        {"l": ["\\d+"]},
        {},
        _error("bad escape \\d at position 0"),
        _ok("\\d+;"),
        "it passes loop values to re.sub as replacement templates",
    ),
    Defect(
        "loop_value_with_group_reference",
        "@foreach(x in props.l){{x}};@endforeach",
        {"l": ["\\g<0>!"]},
        {},
        _unresolved("x", "x", "x"),
        _ok("\\g<0>!;"),
        "it passes loop values to re.sub as replacement templates",
    ),
    Defect(
        "else_in_email_inside_if",
        "@if(props.on)mail a@elsewhere.org@endif",
        {"on": True},
        {},
        _ok("mail a"),
        _ok("mail a@elsewhere.org"),
        "it takes the '@else' of '@elsewhere' for a directive",
    ),
    Defect(
        "else_in_email_inside_if_false",
        "@if(props.on)mail a@elsewhere.org@endif",
        {"on": False},
        {},
        _ok("where.org"),
        _ok(""),
        "it takes the '@else' of '@elsewhere' for a directive",
    ),
    Defect(
        "quote_with_paren_in_condition",
        '@if(props.s == ")")paren@else other@endif',
        {"s": ")"},
        {},
        _ok("other"),
        _ok("paren"),
        "its condition ends at the first ')', even inside quotes",
    ),
    Defect(
        "quote_with_operator_in_condition",
        '@if(props.s != "a==b")differs@else same@endif',
        {"s": "x"},
        {},
        _ok("same"),
        _ok("differs"),
        "it splits a condition at the first operator it knows, even inside quotes",
    ),
    Defect(
        "loop_values_at_stripped_edges",
        "[@if(props.on)@foreach(x in props.l){{x}}@endforeach@endif]",
        {"on": True, "l": [" a", "b "]},
        {},
        _ok("[ab]"),
        _ok("[ ab ]"),
        _REPARSE + ": @if stripping eats whitespace of loop values (never of props)",
    ),
    Defect(
        "empty_loop_value_at_stripped_edge",
        "[@if(props.on)@foreach(x in props.l){{x}} tail@endforeach@endif]",
        {"on": True, "l": [""]},
        {},
        _ok("[tail]"),
        _ok("[ tail]"),
        _REPARSE + ": an empty loop value does not stop @if stripping, "
        "an empty prop value does (case if_empty_value_at_edge)",
    ),
    Defect(
        "foreach_missing_path_in_false_branch",
        "@if(props.on)@foreach(x in props.nope){{x}}@endforeach@endif ok",
        {"on": False},
        {},
        _error(
            "Failed to resolve foreach path 'props.nope': Path 'props.nope' not found "
            "in context (missing 'nope')"
        ),
        _ok(" ok"),
        "it expands every loop before it decides any @if",
    ),
    Defect(
        "error_order_placeholder_first",
        "{{props.nope}} @if(props.s > 1)x@endif",
        {"s": "a"},
        {},
        _error("Cannot compare types 'str' and 'int' with '>'"),
        _unresolved("props.nope", "props.nope", "nope"),
        "it evaluates all conditions before any placeholder: errors come out of "
        "document order",
    ),
]

# -- --whitespace trim: a line holding only a directive disappears with its newline --

TRIM: list[tuple[str, str, dict[str, Any], dict[str, str], str]] = [
    ("seed_for", SEED_FOR, {}, {}, "Item 0\nItem 1\nItem 2\n"),
    (
        "seed_foreach_items",
        SEED_FOREACH_ITEMS,
        SEED_ITEMS,
        {},
        "- Apple\n- Banana\n- Cherry\n",
    ),
    (
        "seed_foreach_users",
        SEED_FOREACH_USERS,
        SEED_USERS,
        {},
        "Name: Alice, Age: 30\nName: Bob, Age: 25\n",
    ),
    (
        "seed_premium_true",
        SEED_PREMIUM,
        {"premium": True},
        {},
        "You have premium access!\n",
    ),
    (
        "seed_premium_false",
        SEED_PREMIUM,
        {"premium": False},
        {},
        "Upgrade to premium for more features.\n",
    ),
    ("seed_status_active", SEED_STATUS, {"status": "active"}, {}, "Status: Active\n"),
    (
        "seed_status_pending",
        SEED_STATUS,
        {"status": "pending"},
        {},
        "Status: Pending approval\n",
    ),
    ("seed_status_inactive", SEED_STATUS, {"status": "gone"}, {}, "Status: Inactive\n"),
    ("seed_age_adult", SEED_AGE, {"age": 30}, {}, "Adult content available\n"),
    ("seed_age_child", SEED_AGE, {"age": 18}, {}, "Restricted content\n"),
    (
        "seed_report_premium",
        SEED_REPORT,
        {"username": "ann", "premium": True},
        {},
        "Report for ann\nPremium features enabled",
    ),
    (
        "seed_report_standard",
        SEED_REPORT,
        {"username": "bo", "premium": False},
        {},
        "Report for bo\n Standard features available ",
    ),
    (
        "inline_if_not_stripped",
        "[@if(props.on)  yes  @endif]",
        {"on": 1},
        {},
        "[  yes  ]",
    ),
    (
        "inline_loop_untouched",
        "a @for(i in range(0, 2)){{i}} @endfor b",
        {},
        {},
        "a 0 1  b",
    ),
    (
        "indented_directive_lines",
        "list:\n  @foreach(x in props.l)\n  - {{x}}\n  @endforeach\nend",
        {"l": ["a", "b"]},
        {},
        "list:\n  - a\n  - b\nend",
    ),
    (
        "trailing_blanks_after_directive",
        "@if(props.on)  \nyes\n@endif \t\n",
        {"on": 1},
        {},
        "yes\n",
    ),
    (
        "text_before_directive_keeps_line",
        "A @if(props.on)\nyes\n@endif\n",
        {"on": 1},
        {},
        "A \nyes\n",
    ),
    (
        "last_line_without_newline",
        "x\n@if(props.on)\ny\n@endif",
        {"on": 1},
        {},
        "x\ny\n",
    ),
    (
        "blank_lines_in_body_kept",
        "@if(props.on)\n\nbody\n\n@endif\n",
        {"on": 1},
        {},
        "\nbody\n\n",
    ),
    (
        "nested_loops",
        "@foreach(r in props.rows)\n@for(i in range(0, 2))\n{{r}}{{i}}\n@endfor\n"
        "@endforeach\n",
        {"rows": ["a", "b"]},
        {},
        "a0\na1\nb0\nb1\n",
    ),
    (
        "loop_var_in_condition",
        '@foreach(x in props.l)\n@if(x == "b")\n[{{x}}]\n@else\n{{x}}\n@endif\n'
        "@endforeach\n",
        {"l": ["a", "b"]},
        {},
        "a\n[b]\n",
    ),
]
