// Self-check quizzes rendered by labkit's `/// quiz` block. Without JavaScript the answer
// stays readable in its <details>; with it, answering says right or wrong at once.
(function () {
  function reveal(quiz, right) {
    quiz.classList.remove("quiz--right", "quiz--wrong");
    quiz.classList.add(right ? "quiz--right" : "quiz--wrong");
    const feedback = quiz.querySelector(".quiz-feedback");
    feedback.textContent = right ? quiz.dataset.labelRight : quiz.dataset.labelWrong;
    quiz.querySelector(".quiz-answer").open = true;
    // A case's diagnosis waits for its quiz (`/// diagnosis` with `after:`): answered, it shows.
    document.querySelectorAll(`[data-after-quiz="${quiz.dataset.quizId}"]`).forEach((block) => {
      block.classList.remove("case--locked");
    });
  }

  function setUpChoice(quiz) {
    quiz.querySelectorAll("button.quiz-option").forEach((button) => {
      button.addEventListener("click", () => {
        quiz.querySelectorAll("li[data-option]").forEach((li) => {
          li.classList.remove("quiz-option--chosen", "quiz-option--right");
        });
        const chosen = button.closest("li");
        chosen.classList.add("quiz-option--chosen");
        quiz.querySelector(`li[data-option="${quiz.dataset.answer}"]`).classList.add("quiz-option--right");
        reveal(quiz, button.value === quiz.dataset.answer);
      });
    });
  }

  // labkit.course.quizzes.readings, the same rule: the numbers a typed answer can mean, in the ways
  // the site prints numbers in the page's language (2048, 2 048 with any space, 2,048, 1,234.5,
  // 130,5, 130.5), full-width digits as digits (typed_numbers.js), optionally followed by the
  // quiz's unit; French "2,048" has both readings; French "1.280" none (ambiguousReadings).
  const SPACE_GROUPED = /^\d{1,3}(?: \d{3})+(?:[.,]\d+)?$/;
  const COMMA_GROUPED = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/;
  const PLAIN = /^\d+(?:[.,]\d+)?$/;
  const DOT_GROUPED = /^\d{1,3}\.\d{3}$/;

  function unitSpellings(unit) {
    const spelled = new Set([unit.trim()]);
    for (const u of [...spelled]) spelled.add(u.replace(/^个/, "").trim());
    for (const u of [...spelled]) if (u.endsWith("s") && u.length > 2) spelled.add(u.slice(0, -1));
    return [...spelled].filter((u) => u).sort((a, b) => b.length - a.length);
  }

  function numberPart(typed, unit) {
    let text = window.labkitTypedNumbers.halfWidth(typed);
    for (const spelled of unitSpellings(unit || "")) {
      if (text.toLowerCase().endsWith(spelled.toLowerCase())) {
        text = text.slice(0, text.length - spelled.length).trim();
        break;
      }
    }
    if (text.startsWith("-") || text.startsWith("\u2212")) return [-1, text.slice(1).trim()];
    return [1, text];
  }

  // labkit.course.quizzes.ambiguous_readings: French "1.280" is 1,28 or 1 280; [] for anything else.
  function ambiguousReadings(typed, lang, unit) {
    const [sign, text] = numberPart(typed, unit);
    if (lang !== "fr" || !DOT_GROUPED.test(text)) return [];
    return [sign * parseFloat(text), sign * parseFloat(text.replace(/\./g, ""))];
  }

  function readings(typed, lang, unit) {
    const [sign, text] = numberPart(typed, unit);
    if (lang === "fr" && DOT_GROUPED.test(text)) return [];
    const found = [];
    if (SPACE_GROUPED.test(text)) found.push(parseFloat(text.replace(/ /g, "").replace(",", ".")));
    if (COMMA_GROUPED.test(text)) found.push(parseFloat(text.replace(/,/g, "")));
    if (PLAIN.test(text) && (lang === "fr" || !text.includes(",") || !COMMA_GROUPED.test(text))) {
      found.push(parseFloat(text.replace(",", ".")));
    }
    return [...new Set(found)].map((value) => sign * value);
  }

  // What the reader is told of an ambiguous answer: its two French spellings (1,28 and 1 280).
  function ambiguityMessage(quiz, typed) {
    const [, text] = numberPart(typed, quiz.dataset.unit || "");
    const [whole, ...rest] = text.split(".");
    return quiz.dataset.labelAmbiguous.replace("{typed}", typed.trim())
      .replace("{decimal}", `${whole},${rest.join("")}`).replace("{grouped}", [whole, ...rest].join("\u202f"));
  }

  function setUpNumeric(quiz) {
    const form = quiz.querySelector("form.quiz-numeric");
    const lang = quiz.dataset.lang;
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const typed = form.querySelector("input").value;
      const values = readings(typed, lang, quiz.dataset.unit || "");
      if (values.length === 0) {   // not a number, or an ambiguous one: say so, and keep the answer folded
        quiz.classList.remove("quiz--right", "quiz--wrong");
        quiz.querySelector(".quiz-feedback").textContent =
          ambiguousReadings(typed, lang, quiz.dataset.unit || "").length ? ambiguityMessage(quiz, typed) : quiz.dataset.labelNumber;
        return;
      }
      const expected = parseFloat(quiz.dataset.answer);
      const tolerance = parseFloat(quiz.dataset.tolerance);
      reveal(quiz, values.some((value) => Math.abs(value - expected) <= tolerance * Math.abs(expected)));
    });
  }

  window.labkitQuiz = { readings, ambiguousReadings };

  if (typeof document$ === "undefined") return;   // a page without Material: the parser only
  document$.subscribe(() => {
    // Without this script the diagnosis stays readable, folded; with it, hidden until answered.
    document.querySelectorAll("[data-after-quiz]").forEach((block) => {
      if (block.dataset.lockReady) return;
      block.dataset.lockReady = "1";
      block.classList.add("case--locked");
    });
    document.querySelectorAll(".quiz[data-quiz-kind]").forEach((quiz) => {
      if (quiz.dataset.ready) return;
      quiz.dataset.ready = "1";
      (quiz.dataset.quizKind === "choice" ? setUpChoice : setUpNumeric)(quiz);
    });
  });
})();
