// progress.mjs - the student's progress in a Storage (localStorage in the
// page, a fake in tests): the draft, the last result and whether the task
// was ever passed. Every call survives a storage that throws (private
// mode, quota, disabled cookies): reads give the empty progress, writes
// return false.

export const STORAGE_VERSION = 1;

export function storagePrefix(taskId) {
  return `butterfly-grader.v${STORAGE_VERSION}.${taskId}`;
}

function read(storage, key) {
  try {
    return storage ? storage.getItem(key) : null;
  } catch {
    return null;
  }
}

function write(storage, key, value) {
  try {
    if (!storage) return false;
    storage.setItem(key, value);
    return true;
  } catch {
    return false;
  }
}

function remove(storage, key) {
  try {
    if (storage) storage.removeItem(key);
    return true;
  } catch {
    return false;
  }
}

function isVerdict(v) {
  return v && typeof v === 'object' && v.status && typeof v.status.id === 'number';
}

/*
 * Returns {load, saveDraft, saveResult, clearDraft, clearAll} bound to
 * `storage` and the task's keys. load() gives
 * {draft: string | null, result: {verdict, source, savedAt} | null,
 *  passed: boolean}; a stored value that does not parse is ignored.
 */
export function createProgress(storage, taskId) {
  const prefix = storagePrefix(taskId);
  const keys = {
    draft: `${prefix}.draft`,
    result: `${prefix}.result`,
    passed: `${prefix}.passed`,
  };

  function load() {
    const draft = read(storage, keys.draft);
    let result = null;
    const raw = read(storage, keys.result);
    if (raw) {
      try {
        const parsed = JSON.parse(raw);
        if (parsed && isVerdict(parsed.verdict)) {
          result = {
            verdict: parsed.verdict,
            source: typeof parsed.source === 'string' ? parsed.source : null,
            savedAt: typeof parsed.savedAt === 'number' ? parsed.savedAt : null,
          };
        }
      } catch {
        result = null;
      }
    }
    return {
      draft: typeof draft === 'string' ? draft : null,
      result,
      passed: read(storage, keys.passed) === 'true',
    };
  }

  function saveDraft(source) {
    return write(storage, keys.draft, String(source));
  }

  /* Stores the verdict and the source it graded; an accepted verdict also
   * sets the passed flag, which nothing but clearAll() unsets. */
  function saveResult(verdict, source, now = Date.now()) {
    if (!isVerdict(verdict)) return false;
    const ok = write(storage, keys.result, JSON.stringify({ verdict, source, savedAt: now }));
    if (verdict.status.id === 3 && verdict.passed === true) {
      return write(storage, keys.passed, 'true') && ok;
    }
    return ok;
  }

  function clearDraft() {
    return remove(storage, keys.draft);
  }

  function clearAll() {
    return [keys.draft, keys.result, keys.passed].map((k) => remove(storage, k)).every(Boolean);
  }

  return { keys, load, saveDraft, saveResult, clearDraft, clearAll };
}
