"""The service's structured log (aws-lambda-powertools Logger) and its fault reports: a module below every
package, so that metering, accounts and the web layer report the same way.

Records never hold body content, query values or whole keys.
"""

from __future__ import annotations

import json
import logging
from typing import Any, cast

from aws_lambda_powertools import Logger

from fileapi import library_logs

# What can start a JSON text (RFC 8259: white space, an object, array, string, number or literal).
_JSON_STARTS = frozenset('{["-0123456789tfn \t\r\n')


def _message_value(message: dict[Any, Any] | str | bool | int | float) -> str:
    """Powertools decodes a message that is JSON text and keeps any other as it is: the same, without a failed
    decode (an exception raised and caught) for every plain message such as the access record's "request".
    (The return type is Powertools' annotation; the value is whatever the JSON text holds.)"""
    if isinstance(message, str) and message[:1] in _JSON_STARTS:
        return cast(str, json.loads(message))
    raise ValueError("not JSON")


logger = Logger(service="fileapi", json_deserializer=_message_value)
library_logs.silence()  # every process that logs ours (conversion workers: fileapi.isolation.worker)
_stdlib_logger = logging.getLogger(logger.name)  # the logger Powertools writes through
METRICS_NAMESPACE = "FileApi"
METERING_FAULTS_METRIC = "MeteringFaults"
KEY_DELIVERY_FAILURES_METRIC = "KeyDeliveryFailures"


def report_metering_fault(kind: str) -> None:
    """A store fault met by metering (see fileapi.metering.settling.Fault): a warning record, and the
    MeteringFaults metric by kind where metrics are emitted, so that possible miscounts are visible."""
    logger.warning("metering fault", extra={"metering_fault": kind})
    from fileapi.settings import get_settings

    if get_settings().emit_metrics:
        from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

        metrics = EphemeralMetrics(namespace=METRICS_NAMESPACE)
        metrics.add_dimension(name="kind", value=kind)
        metrics.add_metric(name=METERING_FAULTS_METRIC, unit=MetricUnit.Count, value=1)
        metrics.flush_metrics()


def report_key_delivery_failure(attempts: int) -> None:
    """A key's e-mail could not be sent (see fileapi.account.delivery): a warning record, and the
    KeyDeliveryFailures metric where metrics are emitted, which the KeyDeliveryAlarm watches."""
    logger.warning("key delivery failed", extra={"delivery_attempts": attempts})
    from fileapi.settings import get_settings

    if get_settings().emit_metrics:
        from aws_lambda_powertools.metrics import EphemeralMetrics, MetricUnit

        metrics = EphemeralMetrics(namespace=METRICS_NAMESPACE)
        metrics.add_metric(name=KEY_DELIVERY_FAILURES_METRIC, unit=MetricUnit.Count, value=1)
        metrics.flush_metrics()
