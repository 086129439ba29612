// thinkeval report, sample browser 2/5: where the samples come from.
// The index (ids, verdicts, tokens: no text) is filtered and sorted here in the page. Texts come
// either from the JSON block in this file or, under `thinkeval view`, from the server a page at a
// time. Both sources answer the same three questions: the index, the texts of some rows, and
// which rows a full-text search matches.
var CORRECT = 0;

// Whether the recording scorer named `name` (one of index.scorers, those beside strict) counts
// row r correct at the fixed budget, or after the adaptive phase: two bits per scorer.
function scorerCorrect(index, r, name, adaptive) {
  var i = index.scorers.indexOf(name);
  return i !== -1 && ((index.row_scorers[r] >> (2 * i + (adaptive ? 1 : 0))) & 1) === 1;
}

// Rows and questions in a shape the filters use. A task asked k times per question has k rows
// per model and question, repeat 0 first and the others right after it: rowOf[model *
// questions + q] is the first of them, or -1.
function Catalog(index) {
  this.index = index;
  this.rows = index.row_question.length;
  this.questions = index.question_id.length;
  this.errorCode = index.statuses.indexOf("error");
  this.pendingCode = index.statuses.indexOf("pending");
  this.repeated = index.task_repeats.some(function (k) { return k > 1; });
  this.rowOf = new Int32Array(index.models.length * this.questions).fill(-1);
  for (var r = 0; r < this.rows; r += 1) {
    if (index.row_repeat[r] === 0) {
      this.rowOf[index.row_model[r] * this.questions + index.row_question[r]] = r;
    }
  }
}

// The first row of a model's replies to a question (-1: not asked).
Catalog.prototype.row = function (model, question) {
  return this.rowOf[model * this.questions + question];
};

// Replies per question of the question's task.
Catalog.prototype.k = function (question) {
  return this.index.task_repeats[this.index.question_task[question]];
};

// All of a model's rows on a question, one per repeat (none when it was not asked).
Catalog.prototype.rowsOf = function (model, question) {
  var first = this.row(model, question), rows = [];
  for (var i = 0; first >= 0 && i < this.k(question); i += 1) { rows.push(first + i); }
  return rows;
};

// The sample's id, with the repeat for a task asked more than once ("aime25/3#2").
Catalog.prototype.label = function (r) {
  var q = this.index.row_question[r];
  var id = this.index.question_id[q];
  return this.k(q) > 1 ? id + "#" + this.index.row_repeat[r] : id;
};

Catalog.prototype.answered = function (code) { return code < this.errorCode; };

// Asked again at B2: the fixed reply called for the retry, and the retry has been recorded.
Catalog.prototype.retried = function (r) {
  return this.index.row_due[r] === 1 && this.index.row_final[r] !== this.pendingCode;
};

// A text the report shortened arrives as [head, omitted count, tail].
function plainText(value) {
  if (value === null || value === undefined) { return ""; }
  return Array.isArray(value) ? value[0] + "\n" + value[2] : value;
}

function embeddedSource(payload) {
  var lowered = [];
  function searchText(catalog, r) {
    if (lowered[r] === undefined) {
      var q = catalog.index.row_question[r];
      var parts = [plainText(payload.questions[q].p), catalog.index.question_gold[q]];
      payload.rows[r].forEach(function (a) { parts.push(plainText(a.c)); });
      lowered[r] = parts.join("\n").toLowerCase();
    }
    return lowered[r];
  }
  return {
    mode: "embedded",
    index: function () { return Promise.resolve(payload.index); },
    details: function (rows, catalog) {
      var found = { rows: {}, questions: {}, exemplars: payload.exemplars };
      rows.forEach(function (r) {
        var q = catalog.index.row_question[r];
        found.rows[r] = payload.rows[r];
        found.questions[q] = payload.questions[q];
      });
      return Promise.resolve(found);
    },
    search: function (needle, catalog) {
      var hits = new Set();
      var wanted = needle.toLowerCase();
      for (var r = 0; r < catalog.rows; r += 1) {
        if (searchText(catalog, r).indexOf(wanted) !== -1) { hits.add(r); }
      }
      return Promise.resolve(hits);
    }
  };
}

function getJson(url) {
  return fetch(url).then(function (response) {
    if (!response.ok) {
      return response.text().then(function (text) { throw new Error(text || response.statusText); });
    }
    return response.json();
  });
}

// The server answers at most this many rows a request: a page of question cards with many
// repeats is fetched in parts.
var ROWS_PER_REQUEST = 500;

function servedSource() {
  var searches = new Map();
  function details(rows) {
    var parts = [];
    for (var i = 0; i < rows.length; i += ROWS_PER_REQUEST) {
      parts.push(getJson("api/rows?r=" + rows.slice(i, i + ROWS_PER_REQUEST).join(",")));
    }
    return Promise.all(parts).then(function (found) {
      var merged = { rows: {}, questions: {}, exemplars: {} };
      found.forEach(function (part) {
        ["rows", "questions", "exemplars"].forEach(function (key) {
          Object.assign(merged[key], part[key]);
        });
      });
      return merged;
    });
  }
  return {
    mode: "served",
    index: function () { return getJson("api/index"); },
    details: details,
    search: function (needle) {
      if (!searches.has(needle)) {
        searches.set(needle, getJson("api/search?q=" + encodeURIComponent(needle))
          .then(function (found) { return new Set(found.rows); }));
      }
      return searches.get(needle);
    }
  };
}

function sampleSource() {
  var payload = JSON.parse(byId("thinkeval-samples").textContent);
  return payload.mode === "embedded" ? embeddedSource(payload) : servedSource();
}
