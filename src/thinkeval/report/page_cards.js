// thinkeval report, sample browser 3/5: one card per reply, one card per question and model (its
// k replies), or two models side by side.
// Model output is data, never markup: every text goes onto the page through textContent, so a
// reply containing HTML or script stays inert text.
function el(tag, className, text) {
  var node = document.createElement(tag);
  if (className) { node.className = className; }
  if (text !== undefined && text !== null) { node.textContent = String(text); }
  return node;
}

// Text into `into`, every occurrence of `mark` (a loop's repeated block) highlighted; text
// nodes only, so model output never becomes markup.
function markedText(into, text, mark) {
  if (!mark) { into.appendChild(document.createTextNode(text)); return; }
  var parts = text.split(mark);
  parts.forEach(function (part, i) {
    if (i > 0) { into.appendChild(el("mark", "loop", mark)); }
    if (part) { into.appendChild(document.createTextNode(part)); }
  });
}

function textBlock(value, className, mark) {
  var pre = el("pre", className);
  if (Array.isArray(value)) {
    markedText(pre, value[0], mark);
    pre.appendChild(el("span", "omitted",
      "… " + value[1].toLocaleString("en-US") + " characters omitted …"));
    markedText(pre, value[2], mark);
  } else if (mark) {
    markedText(pre, value, mark);
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

function missing(value, text) { return value === null || value === undefined ? text : value; }

// The judge scorer's reading: [status, answer, judge model]; status "pending": not read yet.
function judgeText(verdict) {
  if (verdict[0] === "pending") { return "not judged yet"; }
  var parts = [verdict[0]];
  if (verdict[1] !== null) { parts.push("answer " + verdict[1]); }
  if (verdict[2] !== null) { parts.push("by " + verdict[2]); }
  return parts.join(" · ");
}

function replyBox(a, scorers) {
  var box = el("div", "attempt" + (a.e != null ? " error" : ""));
  var budget = "max_tokens " + a.mt + (a.mt !== a.b ? " (budget " + a.b + ")" : "");
  box.appendChild(el("h4", null, (a.ph === "fixed" ? "Fixed reply" : "Retry") + " · " + budget));
  var facts = ["finish_reason " + missing(a.f, "—"),
    "completion tokens " + missing(a.ct, "not reported"),
    "reasoning tokens " + missing(a.rt, "not reported"),
    "latency " + (a.lat == null ? "—" : a.lat.toFixed(2) + " s")];
  if (a.ttft != null) { facts.push("TTFT " + a.ttft.toFixed(2) + " s"); }
  box.appendChild(el("div", "facts", facts.join(" · ")));
  if (a.e != null) {
    box.appendChild(el("div", "label error-label",
      "Transport error: the request failed, so this is not the model's answer. It counts as " +
      "not correct until the run is resumed and the sample re-asked."));
    box.appendChild(textBlock(a.e));
    return box;
  }
  var verdicts = el("div", "verdicts");
  var verdictsOf = a.v || {};
  [["strict", a.s]].concat(scorers.map(function (name) {
    return [name, verdictsOf[name]];
  })).forEach(function (pair) {
    var item = el("div");
    item.appendChild(el("span", "badge " + (pair[1] ? pair[1][0] : "pending"), pair[0]));
    item.appendChild(document.createTextNode(" " + verdictText(pair[1])));
    verdicts.appendChild(item);
  });
  if (a.j) {
    var differs = a.j[0] !== "pending" && a.s && (a.j[0] !== a.s[0] || a.j[1] !== a.s[1]);
    var judged = el("div", differs ? "judge differs" : "judge");
    judged.appendChild(el("span", "badge " + a.j[0], "judge"));
    judged.appendChild(document.createTextNode(" " + judgeText(a.j) +
      (differs ? " · reads the reply differently from strict" : "")));
    verdicts.appendChild(judged);
  }
  if (a.dg) {
    var diagnosed = el("div", "diagnosis");
    diagnosed.appendChild(el("span", "badge diagnosis-" + a.dg, "diagnosis: " + a.dg));
    if (a.lb) {
      diagnosed.appendChild(document.createTextNode(" · the repeated block is highlighted"));
    }
    verdicts.appendChild(diagnosed);
  }
  if (a.cr) {
    // Why the program failed, and what it printed: stderr or stdout as text, never markup.
    var failed = el("div", "code-failure");
    failed.appendChild(el("span", "badge code-" + a.cr, "code: " + a.cr));
    verdicts.appendChild(failed);
    if (a.cx) { verdicts.appendChild(textBlock(a.cx, "code-detail")); }
  }
  box.appendChild(verdicts);
  if (a.r != null) {
    var details = el("details");
    details.appendChild(el("summary", null,
      "Reasoning (" + (a.rl || 0).toLocaleString("en-US") + " characters)"));
    details.appendChild(textBlock(a.r, null, a.lb));
    box.appendChild(details);
  } else {
    box.appendChild(el("div", "label", "no reasoning returned"));
  }
  box.appendChild(el("div", "label", "Content"));
  box.appendChild(a.c == null ? el("div", "empty-list", "(no content)") :
    textBlock(a.c, null, a.lb));
  if (a.up != null) {  // the server's words: it could not deliver the output (as text)
    box.appendChild(el("div", "label error-label",
      "The server could not parse the model's finished output in its format and returned " +
      "none of it: counted no_answer (server-unparsed), never asked again. It said:"));
    box.appendChild(textBlock(a.up));
  }
  if (a.tc != null) {  // the server's parsed tool calls, as text (never markup)
    box.appendChild(el("div", "label", "Tool calls"));
    box.appendChild(textBlock(a.tc));
  }
  return box;
}

function badges(catalog, r, into) {
  var index = catalog.index;
  var fixed = index.statuses[index.row_fixed[r]];
  var final = index.statuses[index.row_final[r]];
  into.appendChild(el("span", "badge " + fixed, "fixed: " + fixed));
  into.appendChild(el("span", "badge " + final, "adaptive: " + final));
  index.scorers.forEach(function (name) {
    var right = scorerCorrect(index, r, name, true);
    into.appendChild(el("span", "badge " + (right ? "correct" : "pending"),
      name + ": " + (right ? "correct" : "not correct")));
  });
  var reasons = index.code_reasons || [];
  [["fixed", index.row_fixed_code], ["retry", index.row_retry_code]].forEach(function (pair) {
    var code = pair[1] ? pair[1][r] : -1;
    if (code >= 0) {
      into.appendChild(el("span", "badge code-" + reasons[code],
        "code (" + pair[0] + "): " + reasons[code]));
    }
  });
  if (index.row_judge[r] === 2) {
    into.appendChild(el("span", "badge disagree", "strict and judge disagree"));
  }
}

function questionBlock(catalog, q, details) {
  var index = catalog.index;
  var block = el("div", "question");
  var subject = index.question_subject[q];
  block.appendChild(el("div", "facts", "task " + index.tasks[index.question_task[q]] +
    (subject >= 0 ? " · subject " + index.subjects[subject] : "") +
    " · gold " + index.question_gold[q]));
  var view = details.questions[q];
  if (view.x) {
    var shots = details.exemplars[view.x];
    var folded = el("details");
    folded.appendChild(el("summary", null,
      "Exemplars: " + shots.length + " messages before the question"));
    shots.forEach(function (message) {
      folded.appendChild(el("div", "message-role", message.role));
      folded.appendChild(textBlock(message.content));
    });
    block.appendChild(folded);
  }
  block.appendChild(el("div", "label", "Prompt (last user message)"));
  block.appendChild(textBlock(view.p));
  return block;
}

function sampleLink(catalog, q) {
  var state = emptyState();
  state.id = catalog.index.question_id[q];
  state.task = catalog.index.tasks[catalog.index.question_task[q]];
  if (catalog.k(q) > 1) { state.view = "question"; }
  var link = el("a", "permalink", "link");
  link.href = hashFromState(state);  // never empty: it names the sample
  link.title = "every model's reply to this sample";
  return link;
}

function replies(catalog, r, details, into) {
  var list = details.rows[r];
  if (!list.length) { into.appendChild(el("div", "empty-list", "No reply recorded yet (pending).")); }
  list.forEach(function (a) { into.appendChild(replyBox(a, catalog.index.scorers)); });
}

function rowCard(catalog, r, details) {
  var index = catalog.index;
  var q = index.row_question[r];
  var failed = index.row_fixed[r] === catalog.errorCode || index.row_final[r] === catalog.errorCode;
  var node = el("article", "sample" + (failed ? " error" : ""));
  var title = el("div", "title");
  title.appendChild(el("span", "id", catalog.label(r)));
  title.appendChild(el("span", "model", index.models[index.row_model[r]]));
  badges(catalog, r, title);
  title.appendChild(sampleLink(catalog, q));
  node.appendChild(title);
  node.appendChild(questionBlock(catalog, q, details));
  replies(catalog, r, details, node);
  return node;
}

function answerOf(reply) {
  if (!reply) { return "—"; }
  if (reply.e != null) { return "transport error"; }
  return reply.s ? reply.s[0] + (reply.s[1] !== null ? " · " + reply.s[1] : "") : "—";
}

// A model's k replies to one question: how often it solved it, a line per repeat (fixed and
// adaptive verdict with the answer found, the judge's reading), each reply folded below.
function repeatsBlock(catalog, rows, details, into) {
  var index = catalog.index;
  var q = index.row_question[rows[0]];
  var k = catalog.k(q);
  if (k > 1) {
    var solved = rows.filter(function (r) { return index.row_fixed[r] === CORRECT; }).length;
    var after = rows.filter(function (r) { return index.row_final[r] === CORRECT; }).length;
    var shown = rows.length < k ? " of the " + rows.length + " repeats shown (" + k + " in all)"
      : " of its " + k + " repeats";
    into.appendChild(el("div", "facts", "correct in " + solved + shown + " at the fixed budget, " +
      after + " after the retries"));
    var table = el("table", "repeats");
    var head = el("tr");
    var names = ["repeat", "fixed reply", "retry", "adaptive", "tokens"];
    if (index.judged) { names.push("judge"); }
    names.forEach(function (name) { head.appendChild(el("th", null, name)); });
    table.appendChild(head);
    rows.forEach(function (r) {
      var list = details.rows[r] || [];
      var retry = list.filter(function (a) { return a.ph === "retry"; })[0];
      var judged = list.filter(function (a) { return a.j; })[0];
      var line = el("tr", index.row_judge[r] === 2 ? "differs" : null);
      line.appendChild(el("td", null, "#" + index.row_repeat[r]));
      line.appendChild(el("td", null, answerOf(list[0])));
      line.appendChild(el("td", null, retry ? answerOf(retry) : "not retried"));
      var final = el("td");
      final.appendChild(el("span", "badge " + index.statuses[index.row_final[r]],
        index.statuses[index.row_final[r]]));
      line.appendChild(final);
      line.appendChild(el("td", null, index.row_tokens[r] < 0 ? "—" : index.row_tokens[r]));
      if (index.judged) { line.appendChild(el("td", null, judged ? judgeText(judged.j) : "—")); }
      table.appendChild(line);
    });
    var scroll = el("div", "scroll");
    scroll.appendChild(table);
    into.appendChild(scroll);
  }
  rows.forEach(function (r) {
    if (k === 1) { replies(catalog, r, details, into); return; }
    var folded = el("details");
    folded.appendChild(el("summary", null, "repeat #" + index.row_repeat[r] + ": fixed " +
      index.statuses[index.row_fixed[r]] + ", adaptive " + index.statuses[index.row_final[r]]));
    replies(catalog, r, details, folded);
    into.appendChild(folded);
  });
}

function questionCard(catalog, rows, details) {
  var index = catalog.index;
  var r = rows[0];
  var q = index.row_question[r];
  var node = el("article", "sample question-card");
  var title = el("div", "title");
  title.appendChild(el("span", "id", index.question_id[q]));
  title.appendChild(el("span", "model", index.models[index.row_model[r]]));
  if (rows.some(function (row) { return index.row_judge[row] === 2; })) {
    title.appendChild(el("span", "badge disagree", "strict and judge disagree"));
  }
  title.appendChild(sampleLink(catalog, q));
  node.appendChild(title);
  node.appendChild(questionBlock(catalog, q, details));
  repeatsBlock(catalog, rows, details, node);
  return node;
}

function pairCard(catalog, q, sides, details) {
  var index = catalog.index;
  var node = el("article", "sample pair");
  var title = el("div", "title");
  title.appendChild(el("span", "id", index.question_id[q]));
  title.appendChild(sampleLink(catalog, q));
  node.appendChild(title);
  node.appendChild(questionBlock(catalog, q, details));
  var columns = el("div", "side-by-side");
  sides.forEach(function (rows) {
    var column = el("div", "side");
    var head = el("div", "title");
    head.appendChild(el("span", "model", index.models[index.row_model[rows[0]]]));
    if (rows.length === 1) {
      if (catalog.k(q) > 1) { head.appendChild(el("span", "id", "#" + index.row_repeat[rows[0]])); }
      badges(catalog, rows[0], head);
    }
    column.appendChild(head);
    if (rows.length === 1) {
      replies(catalog, rows[0], details, column);
    } else {
      repeatsBlock(catalog, rows, details, column);
    }
    columns.appendChild(column);
  });
  node.appendChild(columns);
  return node;
}
