// thinkeval report, sample browser 5/5: filters, sorting, paging, and putting it together.
var source = sampleSource();
var catalog = null;
var state = stateFromHash(location.hash) || emptyState();
var searches = { needle: null, hits: null };
var drawn = 0;  // the latest render; an older one whose texts arrive late is dropped
var matched = [];  // the rows the filters select (every row of each card listed)
// The judge filter's values: the row_judge codes they select.
var JUDGE_CODES = { unjudged: 0, agree: 1, disagree: 2 };

// The code of a named value; -2 for a name this report does not have (matches nothing).
function codeOf(list, name) {
  if (name === "") { return -1; }
  var code = list.indexOf(name);
  return code === -1 ? -2 : code;
}

function rowFilter(st, anyModel) {
  var index = catalog.index;
  var want = {
    model: anyModel ? -1 : codeOf(index.models, st.model), task: codeOf(index.tasks, st.task),
    subject: codeOf(index.subjects, st.subject), fixed: codeOf(index.statuses, st.fixed),
    final: codeOf(index.statuses, st.final), finish: codeOf(index.finishes, st.finish),
    repeat: st.repeat === "" ? -1 : parseInt(st.repeat, 10),
    judge: st.judge in JUDGE_CODES ? JUDGE_CODES[st.judge] : -1,
    diagnosis: codeOf(index.diagnoses || [], st.diagnosis),
    code: codeOf(index.code_reasons || [], st.code)
  };
  var split = st.scorer.indexOf(":");
  var vs = split === -1 ? null :
    { only: st.scorer.slice(0, split) === "only", name: st.scorer.slice(split + 1) };
  return function (r) {
    var q = index.row_question[r];
    if (want.model !== -1 && index.row_model[r] !== want.model) { return false; }
    if (want.task !== -1 && index.question_task[q] !== want.task) { return false; }
    if (want.subject !== -1 && index.question_subject[q] !== want.subject) { return false; }
    if (want.repeat !== -1 && index.row_repeat[r] !== want.repeat) { return false; }
    if (want.judge !== -1 && index.row_judge[r] !== want.judge) { return false; }
    if (want.fixed !== -1 && index.row_fixed[r] !== want.fixed) { return false; }
    if (want.final !== -1 && index.row_final[r] !== want.final) { return false; }
    if (want.finish !== -1 && index.row_fixed_finish[r] !== want.finish &&
        index.row_retry_finish[r] !== want.finish) { return false; }
    // A diagnosis label matches a row whose fixed or retry reply has it (docs/diagnosis.md).
    if (want.diagnosis !== -1 && index.row_fixed_diagnosis[r] !== want.diagnosis &&
        index.row_retry_diagnosis[r] !== want.diagnosis) { return false; }
    // A code failure's reason matches a row whose fixed or retry program failed so (docs/code.md).
    if (want.code !== -1 && index.row_fixed_code[r] !== want.code &&
        index.row_retry_code[r] !== want.code) { return false; }
    // "only:NAME": the scorer NAME counts the adaptive outcome correct and strict does not;
    // "strict:NAME": the other way round.
    if (vs) {
      var strictRight = index.row_final[r] === CORRECT;
      var otherRight = scorerCorrect(index, r, vs.name, true);
      if (vs.only ? !(otherRight && !strictRight) : !(strictRight && !otherRight)) {
        return false;
      }
    }
    var retried = catalog.retried(r);
    if (st.retried === "yes" && !retried) { return false; }
    if (st.retried === "no" && retried) { return false; }
    if (st.id !== "" && index.question_id[q] !== st.id) { return false; }
    return !st.q || searches.hits.has(r);
  };
}

// Order items by tokens or latency: a card's value sums its rows' (-1: none known, listed last).
function sortKey(st, rowsOf) {
  var index = catalog.index;
  var column = st.sort.indexOf("tokens") === 0 ? index.row_tokens : index.row_latency_ms;
  var sign = st.sort.slice(-4) === "desc" ? -1 : 1;
  var values = new Map();
  function value(item) {
    if (!values.has(item)) {
      var known = rowsOf(item).map(function (r) { return column[r]; })
        .filter(function (v) { return v >= 0; });
      values.set(item, known.length ? known.reduce(function (x, y) { return x + y; }, 0) : -1);
    }
    return values.get(item);
  }
  return function (a, b) {
    var x = value(a), y = value(b);
    if (x < 0 || y < 0) { return (x < 0) - (y < 0) || a - b; }  // unknown values last
    return sign * (x - y) || a - b;
  };
}

function listView(st) {
  var keep = rowFilter(st, false);
  var rows = [];
  for (var r = 0; r < catalog.rows; r += 1) { if (keep(r)) { rows.push(r); } }
  var rowsOf = function (r) { return [r]; };
  if (st.sort !== "order") { rows.sort(sortKey(st, rowsOf)); }
  return { items: rows, rowsOf: rowsOf };
}

// One card per model and question: listed when one of its rows (repeats) matches, and the
// rows shown are those that match.
function questionView(st) {
  var index = catalog.index;
  var keep = rowFilter(st, false);
  var items = [], cards = {};
  for (var r = 0; r < catalog.rows; r += 1) {
    if (index.row_repeat[r] !== 0) { continue; }
    var rows = catalog.rowsOf(index.row_model[r], index.row_question[r]).filter(keep);
    if (rows.length) { cards[r] = rows; items.push(r); }
  }
  var rowsOf = function (r) { return cards[r]; };
  if (st.sort !== "order") { items.sort(sortKey(st, rowsOf)); }
  return { items: items, rowsOf: rowsOf, cards: cards };
}

// How many of the rows are correct in a phase's column; -1 unless every one has a verdict.
function solvedOf(rows, column) {
  var solved = 0;
  for (var i = 0; i < rows.length; i += 1) {
    if (!catalog.answered(column[rows[i]])) { return -1; }
    solved += column[rows[i]] === CORRECT ? 1 : 0;
  }
  return solved;
}

// Two models on each question: their rows (every repeat, or the one the repeat filter names)
// side by side. Discordant: one right and the other wrong, both answered; with repeats, one
// solved the question in more of its repeats than the other, both answered every repeat.
function pairView(st) {
  var index = catalog.index;
  var a = codeOf(index.models, st.a), b = codeOf(index.models, st.b);
  var column = st.phase === "adaptive" ? index.row_final : index.row_fixed;
  var keep = rowFilter(st, true);
  var repeat = st.repeat === "" ? -1 : parseInt(st.repeat, 10);
  var items = [], sides = {};
  for (var q = 0; q < catalog.questions && a >= 0 && b >= 0; q += 1) {
    var ra = catalog.rowsOf(a, q), rb = catalog.rowsOf(b, q);
    if (!ra.length || !rb.length || !(ra.some(keep) || rb.some(keep))) { continue; }
    if (st.disc) {
      var sa = solvedOf(ra, column), sb = solvedOf(rb, column);
      if (sa < 0 || sb < 0 || (st.disc === "a" ? sa <= sb : sb <= sa)) { continue; }
    }
    if (repeat !== -1) {
      var chosen = function (r) { return index.row_repeat[r] === repeat; };
      ra = ra.filter(chosen);
      rb = rb.filter(chosen);
    }
    sides[ra[0]] = [ra, rb];
    items.push(ra[0]);
  }
  var rowsOf = function (r) { return sides[r][0].concat(sides[r][1]); };
  if (st.sort !== "order") { items.sort(sortKey(st, rowsOf)); }
  return { items: items, rowsOf: rowsOf, sides: sides };
}

// The rows behind listed items (one per card, two per side-by-side card), in a loop: spreading
// 200,000 items into one call would overflow the stack.
function rowsOfItems(view, items) {
  var rows = [];
  items.forEach(function (item) {
    view.rowsOf(item).forEach(function (r) { rows.push(r); });
  });
  return rows;
}

function countText(st, view, page, pages) {
  var index = catalog.index;
  var n = view.items.length;
  var what = n + " of " + catalog.rows + " model replies match";
  if (st.view === "question") {
    what = n + " model and question cards match (" + matched.length + " replies)";
  }
  if (st.view === "pair") {
    var right = st.disc === "a" ? st.a : st.b, wrong = st.disc === "a" ? st.b : st.a;
    var more = catalog.repeated ? " (on a task with repeats: in more of them)" : "";
    what = st.disc
      ? n + " samples answered by both where " + right + " is right and " + wrong + " wrong" +
        more + " match"
      : n + " samples asked of both " + st.a + " and " + st.b + " match";
  }
  var errors = matched.filter(function (r) {
    return index.row_fixed[r] === catalog.errorCode || index.row_final[r] === catalog.errorCode;
  }).length;
  var marked = errors ? " · " + errors + (errors === 1 ? " reply" : " replies") +
    " failed (transport error: not an answer)" : "";
  return what + marked + " · page " + page + " of " + pages;
}

// The list is aria-busy from a change until its cards are drawn (also what tests wait for).
function busy(on) {
  if (on) { byId("sample-list").setAttribute("aria-busy", "true"); }
  else { byId("sample-list").removeAttribute("aria-busy"); }
}

function render() {
  var st = state;
  var token = ++drawn;
  var list = byId("sample-list");
  busy(true);
  if (st.q && searches.needle !== st.q) {
    byId("sample-count").textContent = "searching…";
    source.search(st.q, catalog).then(function (hits) {
      searches = { needle: st.q, hits: hits };
      if (token === drawn) { render(); }
    }, showError);
    return;
  }
  var views = { pair: pairView, question: questionView };
  var view = (views[st.view] || listView)(st);
  matched = rowsOfItems(view, view.items);
  var size = Math.max(1, Math.min(500, parseInt(st.size, 10) || 20));
  var pages = Math.max(1, Math.ceil(view.items.length / size));
  var page = Math.max(1, Math.min(pages, parseInt(st.page, 10) || 1));
  control("page").value = String(page);
  control("page").max = String(pages);
  byId("page-count").textContent = "of " + pages;
  byId("page-prev").disabled = page <= 1;
  byId("page-next").disabled = page >= pages;
  byId("sample-count").textContent = countText(st, view, page, pages);
  var shown = view.items.slice((page - 1) * size, page * size);
  var wanted = rowsOfItems(view, shown);
  source.details(wanted, catalog).then(function (details) {
    if (token !== drawn) { return; }
    while (list.firstChild) { list.removeChild(list.firstChild); }
    shown.forEach(function (r) {
      var q = catalog.index.row_question[r];
      if (st.view === "pair") {
        list.appendChild(pairCard(catalog, q, view.sides[r], details));
      } else if (st.view === "question") {
        list.appendChild(questionCard(catalog, view.cards[r], details));
      } else {
        list.appendChild(rowCard(catalog, r, details));
      }
    });
    if (!shown.length) { list.appendChild(el("p", "empty-list", "No sample matches.")); }
    busy(false);
  }, showError);
}

function showError(error) {
  byId("sample-count").textContent = "could not load the samples: " + error.message;
  busy(false);
}

function update(resetPage) {
  state = readControls();
  if (resetPage) { state.page = "1"; }
  showState(state);
  byId("view-link").href = hashFromState(state) || "#samples";
  render();
}

function fillControls(index) {
  index.models.forEach(function (name) {
    ["model", "a", "b"].forEach(function (key) { addOption(control(key), name, name); });
  });
  index.tasks.forEach(function (name) { addOption(control("task"), name, name); });
  index.subjects.forEach(function (name) { addOption(control("subject"), name, name); });
  index.statuses.forEach(function (name) {
    addOption(control("fixed"), name, name);
    addOption(control("final"), name, name);
  });
  index.finishes.forEach(function (name) { addOption(control("finish"), name, name); });
  index.scorers.forEach(function (name) {
    addOption(control("scorer"), "only:" + name, name + " correct, strict not");
    addOption(control("scorer"), "strict:" + name, "strict correct, " + name + " not");
  });
  (index.diagnoses || []).forEach(function (name) {
    addOption(control("diagnosis"), name, name);
  });
  var reasons = index.code_reasons || [];
  reasons.forEach(function (name) { addOption(control("code"), name, name); });
  byId("code-filter").hidden = reasons.length === 0;
  var most = Math.max.apply(null, index.task_repeats.concat([1]));
  for (var repeat = 0; repeat < most; repeat += 1) {
    addOption(control("repeat"), String(repeat), "repeat " + repeat);
  }
  byId("repeat-filter").hidden = most < 2;
  if (most > 1) {
    control("disc").options[1].textContent = "A right, B wrong (with repeats: A solved more)";
    control("disc").options[2].textContent = "B right, A wrong (with repeats: B solved more)";
  }
  byId("judge-filter").hidden = !index.judged;
  if (index.models.length < 2) {
    control("view").querySelector("option[value=pair]").disabled = true;
  }
}

function withPairDefaults(st) {
  var models = catalog.index.models;
  if (!st.a && models.length) { st.a = models[0]; }
  if (!st.b && models.length > 1) { st.b = models[1]; }
  return st;
}

function bind() {
  STATE_KEYS.forEach(function (key) {
    var input = control(key);
    if (!input || key === "page") { return; }
    var typing = input.tagName === "INPUT";
    var pending = null;
    input.addEventListener(typing ? "input" : "change", function () {
      busy(true);
      clearTimeout(pending);
      pending = setTimeout(function () { update(true); }, typing ? 250 : 0);
    });
  });
  control("page").addEventListener("change", function () { update(false); });
  byId("page-prev").addEventListener("click", function () { step(-1); });
  byId("page-next").addEventListener("click", function () { step(1); });
  byId("export-jsonl").addEventListener("click", function () { exportMatched("jsonl"); });
  byId("export-csv").addEventListener("click", function () { exportMatched("csv"); });
  window.addEventListener("hashchange", function () {
    var st = stateFromHash(location.hash);
    if (!st) { return; }
    state = withPairDefaults(st);
    writeControls(state);
    update(false);
    byId("samples").scrollIntoView();
  });
}

function step(by) {
  control("page").value = String((parseInt(control("page").value, 10) || 1) + by);
  update(false);
}

function exportMatched(format) {
  exportRows(source, catalog, matched.slice().sort(function (a, b) { return a - b; }), format)
    .catch(showError);
}

byId("sample-count").textContent = "loading the sample index…";
busy(true);
source.index().then(function (index) {
  catalog = new Catalog(index);
  fillControls(index);
  var linked = stateFromHash(location.hash) !== null;
  state = withPairDefaults(state);
  writeControls(state);
  bind();
  update(false);
  if (linked) { byId("samples").scrollIntoView(); }
}, showError);
