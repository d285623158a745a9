// Ends every run with one plain line, `tests: N passed, N failed, N skipped`, that tools outside
// Jest (CI summaries) can read without knowing Jest's own format. Written at exit, after Jest's summary.
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    const line = `tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`;
    process.once('exit', () => process.stderr.write(line));
  }
}
