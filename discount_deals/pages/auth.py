"""Login (/login) and Register (/register).

The submit buttons stay disabled until the page is connected to the server: a form submitted
before that would be sent by the browser itself, as a GET with the password in the URL.
"""

import reflex as rx

from .. import routes
from ..components.layout import layout
from ..components.optimistic import sent_unanswered, submit_tap
from ..components.ui import FIELD_INPUT, FIELD_LABEL, button, card, icon
from ..state.account.auth import LoginState, RegisterState


def _auth_card(*children, heading: str, subtitle) -> rx.Component:
    return rx.el.div(
        card(
            rx.el.div(
                rx.el.span(
                    icon("shopping-bag", 24, class_name="text-white"),
                    class_name="mx-auto flex h-12 w-12 items-center justify-center rounded-full bg-orange-700",
                ),
                rx.el.h1(heading, class_name="mt-4 text-2xl font-bold text-gray-900"),
                rx.el.p(subtitle, class_name="mt-1 text-sm text-gray-600"),
                class_name="text-center",
            ),
            *children,
            class_name="p-6 sm:p-8",
        ),
        class_name="mx-auto w-full max-w-md py-8",
    )


def _input(label: str, name: str, input_id: str, error=None, **props) -> rx.Component:
    props.setdefault("type", "text")
    described = f"{input_id}-error"
    return rx.el.div(
        rx.el.label(label, html_for=input_id, class_name=FIELD_LABEL),
        rx.el.input(
            id=input_id,
            name=name,
            class_name=FIELD_INPUT,
            **(
                {"aria_describedby": described, "aria_invalid": rx.cond(error != "", "true", "false")}
                if error is not None
                else {}
            ),
            **props,
        ),
        rx.cond(error != "", rx.el.p(error, id=described, class_name="mt-1 text-sm text-red-700"))
        if error is not None
        else rx.fragment(),
    )


def _submit(state, idle: str, busy: str, key: str | None = None) -> rx.Component:
    """The form's button, busy ("Logging in...") while the state is at work and, with ``key``,
    from the tap: the form's submit sent and unanswered (components/optimistic.submit_tap)."""
    busy_now = state.loading | sent_unanswered(key, state.answered_tap) if key else state.loading
    return button(
        rx.cond(busy_now, busy, idle),
        type="submit",
        size="lg",
        disabled=busy_now | ~rx.State.is_hydrated,
        class_name="w-full justify-center",
    )


def _switch(question: str, action: str, href: str) -> rx.Component:
    """The line under a form that leads to the other one ("Don't have an account? Create one")."""
    return rx.el.p(
        question,
        # In the form's place in the history: Back after signing in never shows a form again.
        rx.el.a(action, href=href, custom_attrs={"replace": True}, class_name="font-semibold text-orange-700 underline"),
        class_name="mt-6 text-center text-sm text-gray-700",
    )


def _back_note(note) -> rx.Component:
    """Where the shopper goes after signing in, by the page's name."""
    return rx.cond(note != "", rx.el.p(note, class_name="mt-2 text-center text-xs text-gray-600"))


def login() -> rx.Component:
    return layout(
        _auth_card(
            rx.el.form(
                _input(
                    "Email", "email", "login-email", type="email", auto_complete="email", placeholder="you@example.com",
                ),
                _input("Password", "password", "login-password", type="password", auto_complete="current-password"),
                rx.el.p(rx.el.a("Forgot password?", href=routes.RESET_PASSWORD,
                                class_name="tap-line text-sm font-medium text-orange-700 underline"),
                       class_name="text-right"),
                rx.cond(
                    LoginState.error != "",
                    rx.el.p(
                        LoginState.error, role="alert", class_name="rounded-md bg-red-50 px-3 py-2 text-sm text-red-800"
                    ),
                ),
                _submit(LoginState, "Login", "Logging in...", "login"),
                on_submit=lambda form: LoginState.submit(form, submit_tap("login")),
                no_validate=True,  # the spec's own message, not the browser's, for empty fields
                class_name="mt-6 space-y-4",
            ),
            _switch("Don't have an account? ", "Create one", LoginState.register_href),
            _back_note(LoginState.back_note),
            heading="Welcome Back",
            subtitle=LoginState.subtitle,
        )
    )


def _error(name: str):
    return RegisterState.errors.get(name, "")


# (label, field name, input id, extra input props) of the register form's text fields, in order.
REGISTER_INPUTS = [
    ("Username", "username", "register-username", {"auto_complete": "username"}),
    ("Email", "email", "register-email", {"type": "email", "auto_complete": "email"}),
    ("Password", "password", "register-password", {"type": "password", "auto_complete": "new-password"}),
    ("Phone Number", "phonenumber", "register-phone", {"type": "tel", "auto_complete": "tel"}),
    ("Date of Birth", "date_of_birth", "register-dob", {"type": "date", "auto_complete": "bday"}),
]


def _gender_field() -> rx.Component:
    return rx.el.div(
        rx.el.label("Gender", html_for="register-gender", class_name=FIELD_LABEL),
        rx.el.select(
            # Shown until a choice is made; disabled, so it is never sent as a value.
            rx.el.option("Select gender", value="", disabled=True),
            rx.el.option("Male", value="male"),
            rx.el.option("Female", value="female"),
            rx.el.option("Other", value="other"),
            id="register-gender",
            name="gender",
            default_value="",
            aria_describedby="register-gender-error",
            class_name=FIELD_INPUT,
        ),
        rx.cond(
            _error("gender") != "",
            rx.el.p(_error("gender"), id="register-gender-error", class_name="mt-1 text-sm text-red-700"),
        ),
    )


def register() -> rx.Component:
    return layout(
        _auth_card(
            rx.el.form(
                rx.el.div(
                    _input("First Name", "first_name", "register-first-name", _error("first_name"),
                           auto_complete="given-name"),
                    _input("Last Name", "last_name", "register-last-name", _error("last_name"),
                           auto_complete="family-name"),
                    class_name="grid gap-4 sm:grid-cols-2",
                ),
                *[_input(label, name, input_id, _error(name), **props)
                  for label, name, input_id, props in REGISTER_INPUTS],
                _gender_field(),
                _submit(RegisterState, "Create Account", "Creating account...", "register"),
                key=RegisterState.form_version,
                on_submit=lambda form: RegisterState.submit(form, submit_tap("register")),
                no_validate=True,  # the spec's messages, shown per field, instead of the browser's
                class_name="mt-6 space-y-4",
            ),
            _switch("Already have an account? ", "Sign in", RegisterState.login_href),
            _back_note(RegisterState.back_note),
            heading="Create Account",
            subtitle="Join us to start saving on amazing deals",
        )
    )
