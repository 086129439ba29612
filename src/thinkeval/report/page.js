// thinkeval report: the per-sample browser.
// Model output is data, never markup: it is read from an application/json block and put on the
// page with textContent only, so a reply containing HTML or script stays inert text.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("thinkeval-samples").textContent);
  var PAGE_SIZE = 20;
  var page = 0;
  var byId = function (id) { return document.getElementById(id); };
  var controls = {
    model: byId("filter-model"), task: byId("filter-task"), verdict: byId("filter-verdict"),
    lenient: byId("filter-lenient"), retried: byId("filter-retried"), search: byId("filter-id")
  };

  function el(tag, className, text) {
    var node = document.createElement(tag);
    if (className) { node.className = className; }
    if (text !== undefined && text !== null) { node.textContent = String(text); }
    return node;
  }

  function addOption(select, value, label) {
    var option = el("option", null, label);
    option.value = value;
    select.appendChild(option);
  }

  // A text that the report shortened arrives as [head, omittedCount, tail].
  function textBlock(value, className) {
    var pre = el("pre", className);
    if (Array.isArray(value)) {
      pre.appendChild(document.createTextNode(value[0]));
      pre.appendChild(el("span", "omitted",
        "… " + value[1].toLocaleString("en-US") + " characters omitted …"));
      pre.appendChild(document.createTextNode(value[2]));
    } else {
      pre.textContent = value;
    }
    return pre;
  }

  function verdictText(verdict) {
    if (!verdict) { return "—"; }
    var parts = [verdict[0]];
    if (verdict[1] !== null) { parts.push("answer " + verdict[1]); }
    if (verdict[2] !== null) { parts.push("rule: " + verdict[2]); }
    return parts.join(" · ");
  }

  function matches(row) {
    var question = data.questions[row.q];
    if (controls.model.value !== "" && String(row.m) !== controls.model.value) { return false; }
    if (controls.task.value !== "" && String(question.t) !== controls.task.value) { return false; }
    if (controls.verdict.value !== "" && row.v !== controls.verdict.value) { return false; }
    if (controls.lenient.value === "lenient-only" && !(row.l && row.v !== "correct")) {
      return false;
    }
    if (controls.lenient.value === "strict-only" && !(row.v === "correct" && !row.l)) {
      return false;
    }
    var retried = row.a.some(function (a) { return a.ph === "retry"; });
    if (controls.retried.value === "yes" && !retried) { return false; }
    if (controls.retried.value === "no" && retried) { return false; }
    var needle = controls.search.value.trim();
    return needle === "" || question.id.indexOf(needle) !== -1;
  }

  function attemptBox(a) {
    var box = el("div", "attempt");
    var budget = "max_tokens " + a.mt + (a.mt !== a.b ? " (budget " + a.b + ")" : "");
    box.appendChild(el("h4", null, (a.ph === "fixed" ? "Fixed reply" : "Retry") + " · " + budget));
    var facts = ["finish_reason " + (a.f === null ? "—" : a.f),
      "completion tokens " + (a.ct === null ? "not reported" : a.ct),
      "reasoning tokens " + (a.rt === null ? "not reported" : a.rt),
      "latency " + (a.lat === null ? "—" : a.lat.toFixed(2) + " s")];
    if (a.ttft !== null) { facts.push("TTFT " + a.ttft.toFixed(2) + " s"); }
    box.appendChild(el("div", "facts", facts.join(" · ")));
    if (a.e !== null) {
      box.appendChild(el("div", "label", "transport error (not a verdict)"));
      box.appendChild(textBlock(a.e));
      return box;
    }
    var verdicts = el("div", "verdicts");
    var strict = el("div");
    strict.appendChild(el("span", "badge " + a.s[0], "strict"));
    strict.appendChild(document.createTextNode(" " + verdictText(a.s)));
    var lenient = el("div");
    lenient.appendChild(el("span", "badge " + a.n[0], "lenient"));
    lenient.appendChild(document.createTextNode(" " + verdictText(a.n)));
    verdicts.appendChild(strict);
    verdicts.appendChild(lenient);
    box.appendChild(verdicts);
    if (a.r !== null) {
      var details = el("details");
      details.appendChild(el("summary", null,
        "Reasoning (" + a.rl.toLocaleString("en-US") + " characters)"));
      details.appendChild(textBlock(a.r));
      box.appendChild(details);
    } else {
      box.appendChild(el("div", "label", "no reasoning returned"));
    }
    box.appendChild(el("div", "label", "Content"));
    box.appendChild(a.c === null ? el("div", "empty-list", "(no content)") : textBlock(a.c));
    return box;
  }

  function card(row) {
    var question = data.questions[row.q];
    var node = el("article", "sample");
    var title = el("div", "title");
    title.appendChild(el("span", "id", question.id));
    title.appendChild(el("span", null, data.models[row.m]));
    title.appendChild(el("span", "badge " + row.v, "adaptive: " + row.v));
    title.appendChild(el("span", "badge " + (row.l ? "correct" : "pending"),
      "lenient: " + (row.l ? "correct" : "not correct")));
    node.appendChild(title);
    var facts = "task " + data.tasks[question.t] + (question.s ? " · subject " + question.s : "") +
      " · gold " + question.g;
    node.appendChild(el("div", "facts", facts));
    if (question.x >= 0) {
      var shots = data.exemplars[question.x];
      var details = el("details");
      details.appendChild(el("summary", null,
        "Exemplars: " + shots.length + " messages before the question"));
      shots.forEach(function (message) {
        details.appendChild(el("div", "message-role", message.role));
        details.appendChild(textBlock(message.content));
      });
      node.appendChild(details);
    }
    node.appendChild(el("div", "label", "Prompt (last user message)"));
    node.appendChild(textBlock(question.p));
    if (row.a.length === 0) {
      node.appendChild(el("div", "empty-list", "No reply recorded yet (pending)."));
    }
    row.a.forEach(function (a) { node.appendChild(attemptBox(a)); });
    return node;
  }

  function render() {
    var chosen = data.rows.filter(matches);
    var pages = Math.max(1, Math.ceil(chosen.length / PAGE_SIZE));
    page = Math.min(page, pages - 1);
    var list = byId("sample-list");
    while (list.firstChild) { list.removeChild(list.firstChild); }
    chosen.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE).forEach(function (row) {
      list.appendChild(card(row));
    });
    if (chosen.length === 0) { list.appendChild(el("p", "empty-list", "No sample matches.")); }
    byId("sample-count").textContent = chosen.length + " of " + data.rows.length +
      " model replies · page " + (page + 1) + " of " + pages;
    byId("page-prev").disabled = page === 0;
    byId("page-next").disabled = page >= pages - 1;
  }

  data.models.forEach(function (name, i) { addOption(controls.model, String(i), name); });
  data.tasks.forEach(function (name, i) { addOption(controls.task, String(i), name); });
  data.statuses.forEach(function (name) { addOption(controls.verdict, name, name); });
  Object.keys(controls).forEach(function (key) {
    controls[key].addEventListener(key === "search" ? "input" : "change", function () {
      page = 0;
      render();
    });
  });
  byId("page-prev").addEventListener("click", function () { page -= 1; render(); });
  byId("page-next").addEventListener("click", function () { page += 1; render(); });
  render();
}());
