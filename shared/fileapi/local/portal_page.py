"""The local billing stand-in's portal page (see fileapi.account.standin): served by `fileapi run` only,
never deployed. It shows the account's plan and this month's usage with its chart (the one GET /v1/usage/chart
answers), and changes the plan or the subscription through signed Stripe events handled by the webhook's own
code."""

from __future__ import annotations

import html
import time
import urllib.parse

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route

from fileapi.account.standin import PORTAL_PATH, session_account
from fileapi.account.stripe_events import sign, subscription_event
from fileapi.account.usage_chart import usage_chart_svg
from fileapi.errors import ApiError, InvalidInput
from fileapi.metering.catalog import PlanCatalog
from fileapi.metering.plans import UnknownPlan
from fileapi.metering.usage import usage_report
from fileapi.services import get_billing_events, get_stores, webhook_secret
from fileapi.settings import get_settings
from fileapi.web.errors import error_response

ACTIONS = ("change", "cancel", "reactivate")


def _secret() -> str:
    secret = webhook_secret(get_settings())
    if not secret:
        raise InvalidInput("the billing stand-in has no webhook secret")
    return secret


def _page(account_id: str, token: str, notice: str = "") -> str:
    stores = get_stores()
    account = stores.accounts.get_account(account_id)
    if account is None:
        raise InvalidInput("this portal session's account no longer exists")
    shards = stores.admission.read_shards(account_id)
    if not shards:
        raise InvalidInput("this portal session's account has no usage items")
    report = usage_report(shards, now_us=time.time_ns() // 1000)
    plans = PlanCatalog(stores.accounts).names()
    options = "".join(
        f'<option value="{html.escape(name)}"{" selected" if name == account.plan else ""}>{html.escape(name)}</option>'
        for name in plans
    )
    escaped_token = html.escape(token)
    active = account.is_active
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Billing portal (local stand-in)</title>
<style>body{{font-family:system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}}
dt{{font-weight:600}}form{{margin:1rem 0}}.notice{{background:#eef;padding:.5rem 1rem}}
figure{{margin:1rem 0}}figure svg{{width:100%;height:auto}}</style></head>
<body>
<h1>Billing portal</h1>
<p>This is the local stand-in of the payment provider's customer portal (<code>fileapi run</code> only).</p>
{f'<p class="notice">{html.escape(notice)}</p>' if notice else ""}
<dl>
<dt>Account</dt><dd>{html.escape(account.email)}</dd>
<dt>Plan</dt><dd id="plan">{html.escape(account.plan)}</dd>
<dt>Subscription</dt><dd id="status">{html.escape(account.status)}</dd>
<dt>Used this month</dt>
<dd id="used">{report.used_this_month} of {report.quota_monthly} (resets {report.resets_at})</dd>
</dl>
<figure id="chart">{usage_chart_svg(report)}</figure>
<form method="post" action="{PORTAL_PATH}">
<input type="hidden" name="session" value="{escaped_token}"><input type="hidden" name="action" value="change">
<label>Change plan <select name="plan">{options}</select></label> <button type="submit">Change</button>
</form>
<form method="post" action="{PORTAL_PATH}">
<input type="hidden" name="session" value="{escaped_token}">
<input type="hidden" name="action" value="{"cancel" if active else "reactivate"}">
<button type="submit">{"Cancel the subscription" if active else "Reactivate the subscription"}</button>
</form>
</body></html>"""


async def show(request: Request) -> Response:
    """GET the portal page of a session."""
    token = request.query_params.get("session", "")
    try:
        account_id = session_account(token, secret=_secret())
        body = await run_in_threadpool(_page, account_id, token, request.query_params.get("notice", ""))
    except ApiError as error:
        return error_response(error)
    return HTMLResponse(body)


async def act(request: Request) -> Response:
    """POST a change (plan, cancel, reactivate) as the payment provider would: a signed event to the webhook code."""
    form = urllib.parse.parse_qs((await request.body()).decode("utf-8", "replace"))
    token = form.get("session", [""])[0]
    action = form.get("action", [""])[0]
    try:
        secret = _secret()
        account_id = session_account(token, secret=secret)
        if action not in ACTIONS:
            raise InvalidInput(f"action must be one of {', '.join(ACTIONS)}")
        notice = await run_in_threadpool(_apply, account_id, action, form.get("plan", [""])[0], secret)
    except ApiError as error:
        return error_response(error)
    query = urllib.parse.urlencode({"session": token, "notice": notice})
    return RedirectResponse(f"{PORTAL_PATH}?{query}", status_code=303)


def _apply(account_id: str, action: str, plan: str, secret: str) -> str:
    accounts = get_stores().accounts
    account = accounts.get_account(account_id)
    if account is None or not account.customer_id:
        raise InvalidInput("this portal session's account has no billing customer")
    if action == "change":
        try:
            PlanCatalog(accounts).get(plan)
        except UnknownPlan as exc:
            raise InvalidInput(str(exc)) from None
        event = subscription_event(account.customer_id, status="active", plan=plan)
    elif action == "cancel":
        event = subscription_event(account.customer_id, status="canceled", deleted=True, plan=account.plan)
    else:
        event = subscription_event(account.customer_id, status="active", plan=account.plan)
    body, signature = sign(event, secret=secret)
    outcome = get_billing_events().handle(body, signature)
    return f"done: {outcome}"


def portal_app() -> Starlette:
    """The stand-in's pages, mounted by the local server under /local/."""
    return Starlette(routes=[Route(PORTAL_PATH, show, methods=["GET"]), Route(PORTAL_PATH, act, methods=["POST"])])
