// thinkeval report, sample browser 4/5: export the filtered samples as JSONL or CSV.
// One record per model reply, the same fields `thinkeval view` writes (report/viewer/export.py):
// in this file long texts are the shortened ones, marked "shortened": true. Each recording
// scorer beside strict (index.scorers) has its fields by name: NAME_adaptive_correct per
// record, NAME per reply.
var CSV_HEAD = ["model", "task", "sample_id", "repeat", "subject", "gold", "fixed_verdict",
  "adaptive_verdict"];
var CSV_TAIL = ["fixed_answer", "fixed_finish_reason",
  "fixed_completion_tokens", "fixed_latency_s", "fixed_error", "fixed_judge_verdict",
  "fixed_judge_answer", "retry_verdict", "retry_answer", "retry_finish_reason",
  "retry_completion_tokens", "retry_latency_s", "retry_error", "retry_judge_verdict",
  "retry_judge_answer", "fixed_content", "retry_content"];

function csvColumns(index) {
  return CSV_HEAD.concat(index.scorers.map(function (name) {
    return name + "_adaptive_correct";
  }), CSV_TAIL);
}

function judgement(verdict) {
  return verdict ? { status: verdict[0], answer: verdict[1], rule: verdict[2] } : null;
}

// The judge scorer's reading; its third part is the judge's model id.
function judgeRecord(verdict) {
  return verdict ? { status: verdict[0], answer: verdict[1], model: verdict[2] } : null;
}

function exportRecord(catalog, r, details) {
  var index = catalog.index;
  var q = index.row_question[r];
  var shortened = false;
  function text(value) {
    if (Array.isArray(value)) {
      shortened = true;
      return value[0] + "\n… " + value[1] + " characters omitted …\n" + value[2];
    }
    return missing(value, null);
  }
  var replies = details.rows[r].map(function (a) {
    var reply = {
      phase: a.ph, max_tokens: a.mt, finish_reason: missing(a.f, null),
      completion_tokens: missing(a.ct, null), reasoning_tokens: missing(a.rt, null),
      latency_s: missing(a.lat, null), ttft_s: missing(a.ttft, null), error: missing(a.e, null),
      strict: judgement(a.s)
    };
    index.scorers.forEach(function (name) { reply[name] = judgement((a.v || {})[name]); });
    reply.judge = judgeRecord(a.j);
    reply.content = text(a.c);
    reply.reasoning = text(a.r);
    return reply;
  });
  var subject = index.question_subject[q];
  var record = {
    model: index.models[index.row_model[r]], task: index.tasks[index.question_task[q]],
    sample_id: index.question_id[q], repeat: index.row_repeat[r],
    subject: subject >= 0 ? index.subjects[subject] : null,
    gold: index.question_gold[q], fixed_verdict: index.statuses[index.row_fixed[r]],
    adaptive_verdict: index.statuses[index.row_final[r]]
  };
  index.scorers.forEach(function (name) {
    record[name + "_adaptive_correct"] = scorerCorrect(index, r, name, true);
  });
  record.prompt = text(details.questions[q].p);
  record.replies = replies;
  record.shortened = shortened;
  return record;
}

function flatRecord(record, columns) {
  var flat = {};
  columns.slice(0, columns.indexOf(CSV_TAIL[0])).forEach(function (key) {
    flat[key] = record[key];
  });
  ["fixed", "retry"].forEach(function (phase) {
    var reply = record.replies.filter(function (a) { return a.phase === phase; })[0] || null;
    var verdict = reply && reply.strict;
    flat[phase + "_verdict"] = reply ? (verdict ? verdict.status : "error") : null;
    flat[phase + "_answer"] = verdict ? verdict.answer : null;
    flat[phase + "_finish_reason"] = reply ? reply.finish_reason : null;
    flat[phase + "_completion_tokens"] = reply ? reply.completion_tokens : null;
    flat[phase + "_latency_s"] = reply && reply.latency_s !== null ? reply.latency_s.toFixed(3) : null;
    flat[phase + "_error"] = reply ? reply.error : null;
    var judge = reply && reply.judge;
    flat[phase + "_judge_verdict"] = judge ? judge.status : null;
    flat[phase + "_judge_answer"] = judge ? judge.answer : null;
    flat[phase + "_content"] = reply ? reply.content : null;
  });
  return flat;
}

function csvField(value) {
  if (value === null || value === undefined) { return ""; }
  var text = String(value);
  return /[",\r\n]/.test(text) ? "\"" + text.replace(/"/g, "\"\"") + "\"" : text;
}

function csvLine(values) { return values.map(csvField).join(",") + "\r\n"; }

function download(name, type, text) {
  var url = URL.createObjectURL(new Blob([text], { type: type }));
  var link = el("a");
  link.href = url;
  link.download = name;
  document.body.appendChild(link);
  link.click();
  link.remove();
  setTimeout(function () { URL.revokeObjectURL(url); }, 1000);
}

// "0-4,7,9-10": a compact list of row numbers for the server.
function rowRanges(rows) {
  var parts = [];
  for (var i = 0; i < rows.length; i += 1) {
    var start = rows[i];
    while (i + 1 < rows.length && rows[i + 1] === rows[i] + 1) { i += 1; }
    parts.push(start === rows[i] ? String(start) : start + "-" + rows[i]);
  }
  return parts.join(",");
}

function exportRows(source, catalog, rows, format) {
  if (source.mode === "served") {
    var form = el("form");
    form.method = "post";
    form.action = "api/export";
    [["format", format], ["rows", rowRanges(rows)]].forEach(function (field) {
      var input = el("input");
      input.type = "hidden";
      input.name = field[0];
      input.value = field[1];
      form.appendChild(input);
    });
    document.body.appendChild(form);
    form.submit();
    form.remove();
    return Promise.resolve();
  }
  return source.details(rows, catalog).then(function (details) {
    var records = rows.map(function (r) { return exportRecord(catalog, r, details); });
    if (format === "jsonl") {
      download("thinkeval-samples.jsonl", "application/x-ndjson",
        records.map(function (record) { return JSON.stringify(record) + "\n"; }).join(""));
    } else {
      var columns = csvColumns(catalog.index);
      download("thinkeval-samples.csv", "text/csv", csvLine(columns) + records.map(function (record) {
        var flat = flatRecord(record, columns);
        return csvLine(columns.map(function (key) { return flat[key]; }));
      }).join(""));
    }
  });
}
