// history-start.mjs - starts the records' part of the page (history.mjs)
// once the document is parsed; kept apart so that history.mjs imports in
// node's tests without a document.
import { startHistory } from './history.mjs';

startHistory(document, fetch, window);
