/**
 * What each field of a message's parts and changes says, once for the response and the request
 * form (`parts.schemas.ts`, `changes.schemas.ts`). The parts' `type` and `title` say one text in
 * every kind: a tool shows the kinds as one object.
 */
export const FIELD_TEXT = {
  callId: 'Id of the tool call.',
  callName: 'Name of the tool called.',
  callStatus: 'State of the call.',
  callArguments: 'Arguments of the call.',
  callResult: 'What the call returned.',
  callError: 'Error of the call, if it failed.',
  partText: 'Text of a text part.',
  toolCallId: "Id of one of the message's toolCalls (tool-call part).",
  artifactId: 'Id of the artifact (artifact part).',
  artifactPath: 'Path of the artifact.',
  artifactKind: 'Kind of artifact: email, call-script or document.',
  previewText: 'Short preview of the artifact; null: none.',
  variant: 'Kind of error: generic or provider-outage.',
  errorMessage: 'What went wrong (error part).',
  provider: 'Provider that failed (provider-outage).',
  incidentTitle: "Title of the provider's incident.",
  statusPageUrl: "Address of the provider's status page.",
  changeField: 'The audience field changed.',
  newValue: "The field's new value; null clears it.",
  changeStatus: 'State of the change: applied, reverted or saved.',
  partKind: 'Kind of part: text, tool-call, artifact or error.',
  partTitle: 'Title of the artifact or the error.',
} as const;
