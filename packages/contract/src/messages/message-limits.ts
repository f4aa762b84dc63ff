/**
 * Largest message an audience's conversation stores: 256 KiB, counted as UTF-8 bytes of the
 * message's JSON as the history returns it (content, reasoning, tool calls with their results,
 * content parts, and changes with their previous values). Larger: 400 VALIDATION_ERROR.
 */
export const MESSAGE_MAX_BYTES = 262_144;

/**
 * Largest history of one audience: 4 MiB, the sum of its messages' sizes (see
 * {@link MESSAGE_MAX_BYTES}) where saved changes count twice, since the history also lists them
 * as `pendingChanges`. A message that would go past it: 400 VALIDATION_ERROR. A history read therefore
 * answers at most this much plus the audience's context.
 */
export const MESSAGE_HISTORY_MAX_BYTES = 4_194_304;

/** Most messages one audience's history holds; the next one is 400 VALIDATION_ERROR. */
export const MESSAGE_HISTORY_MAX_MESSAGES = 1_000;
