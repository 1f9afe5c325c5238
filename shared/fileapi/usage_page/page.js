// The usage page (GET /usage): a customer gives their key, and the page shows this month's chart, drawn by the
// API (GET /v1/usage/chart). The key goes only to this origin, in the Authorization header: never into the
// address, the browser's storage or a log. The chart is put into the page as SVG elements (its title and
// description stay readable by a screen reader); it carries no script and no style the page's policy would block.
"use strict";

const SVG_NAMESPACE = "http://www.w3.org/2000/svg";
const form = document.getElementById("key-form");
const status = document.getElementById("status");
const figure = document.getElementById("chart");

function clear(message) {
  figure.replaceChildren();
  figure.hidden = true;
  status.textContent = message;
}

async function refusal(answer) {
  try {
    const error = await answer.json();
    return error.message || `The API answered ${answer.status}.`;
  } catch {
    return `The API answered ${answer.status}.`;
  }
}

async function show(key) {
  status.textContent = "Loading your usage…";
  const answer = await fetch("/v1/usage/chart", {
    headers: { Authorization: `Bearer ${key}` },
    cache: "no-store",
    credentials: "omit",
  });
  if (!answer.ok) {
    clear(await refusal(answer));
    return;
  }
  const chart = new DOMParser().parseFromString(await answer.text(), "image/svg+xml").documentElement;
  if (chart.namespaceURI !== SVG_NAMESPACE || chart.localName !== "svg") {
    clear("The chart could not be read.");
    return;
  }
  figure.replaceChildren(document.importNode(chart, true));
  figure.hidden = false;
  status.textContent = "";
}

form.addEventListener("submit", (event) => {
  event.preventDefault();
  show(form.elements.key.value.trim()).catch((error) => clear(`Your usage did not load: ${error.message}`));
});
