// wordCount counts the words of Markdown text (code blocks included,
// markup not).
export function wordCount(text) {
  const words = text.replace(/[#*_`>\[\]()]/g, ' ').split(/\s+/).filter((w) => /\w/.test(w));
  return words.length;
}

// readingTime is the minutes a reader takes at wordsPerMinute, at least 1.
export function readingTime(text, wordsPerMinute = 220) {
  return Math.max(1, Math.round(wordCount(text) / wordsPerMinute));
}
