// Ends every run with one plain line, `tests: N passed, N failed, N skipped`, that tools outside
// Jest (CI summaries) can read without knowing Jest's own format.
export default class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests } = results;
    process.stderr.write(`tests: ${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests + numTodoTests} skipped\n`);
  }
}
