/** Every zone this browser knows, offered as suggestions; the API checks a zone itself. */
export const TIME_ZONES: readonly string[] = (() => {
  try {
    return Intl.supportedValuesOf('timeZone');
  } catch {
    return [];
  }
})();
