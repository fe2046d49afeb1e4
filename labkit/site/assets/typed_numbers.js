// What a reader types in a number field, read as the site prints numbers: the rule the widgets
// and the quizzes share; labkit.report.typed_numbers is its twin (the browser tests hold them
// equal). Full-width digits and signs (２５６, １，０２４) are ASCII; a whole number may be grouped
// by threes with spaces (1 024) in both languages, with commas (1,024) in Chinese only.
(function () {
  "use strict";

  const HALF_WIDTH = { "\uff0c": ",", "\uff0e": ".", "\uff0d": "-", "\uff0b": "+", "\u3000": " " };
  const SPACES = /[\t\n\v\f\r \u00a0\u2009\u202f]+/g;
  const SPACE_GROUPED_WHOLE = /^[-\u2212]?\d{1,3}(?: \d{3})+$/;
  const COMMA_GROUPED_WHOLE = /^[-\u2212]?\d{1,3}(?:,\d{3})+$/;

  function halfWidth(typed) {
    return typed.replace(/[\uff10-\uff19\uff0c\uff0e\uff0d\uff0b\u3000]/g, (ch) =>
      HALF_WIDTH[ch] || String(ch.charCodeAt(0) - 0xff10)).replace(SPACES, " ").trim();
  }

  function wholeDigits(typed, lang) {
    const text = halfWidth(typed);
    if (SPACE_GROUPED_WHOLE.test(text)) return text.replace(/ /g, "");
    if (lang === "zh" && COMMA_GROUPED_WHOLE.test(text)) return text.replace(/,/g, "");
    return text;
  }

  window.labkitTypedNumbers = { halfWidth, wholeDigits };
})();
