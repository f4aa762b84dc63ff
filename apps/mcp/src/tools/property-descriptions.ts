import type { JsonSchema } from './json-schema.js';

/**
 * Descriptions of input properties the contract leaves undescribed, for a model deciding what to
 * pass. Looked up as `tool.path` (`create_page.name`), then `parent.property` (the enclosing
 * property's name, `metadata.title`), then the property name alone.
 */
const TEXTS: Readonly<Record<string, string>> = {
  pageId: 'Id of the page (page_…).',
  audienceId: 'Id of the audience under the page (aud_…).',
  versionId: 'Id of the audience version.',
  messageId: 'Id of a message of the audience’s history.',
  assetId: 'Id of the asset.',
  accountId: 'Id of the account.',
  personId: 'Id of the person.',
  personLogId: 'Id of the person log entry.',
  accountLogId: 'Id of the account log entry.',
  topicId: 'Id of the topic.',
  audienceSessionId: 'Id of the audience session, from create_audience_session.',
  webhookSubscriptionId: 'Id of the webhook subscription.',
  deliveryId: 'Id of the webhook delivery, from list_webhook_deliveries.',
  fileId: 'Id of the uploaded file.',
  'create_page.name': 'Internal name of the page.',
  'create_page.title': 'Title shown on the page.',
  pageContext: 'What the page is about: the context its assistant answers from.',
  brandId: 'Id of the brand the page belongs to.',
  pageType: 'Kind of page, e.g. inbound.',
  actions: 'Calls to action offered on the page.',
  actionId: 'Id of the action, unique on the page.',
  actionIndex: 'Position of the action, from 0.',
  'actions.purpose': 'What the action is for.',
  buttonTitle: 'Text of the action’s button.',
  actionType: 'Kind of action, e.g. link or form.',
  'actions.url': 'Address the action opens.',
  actionCardWidgets: 'Cards shown beside the actions.',
  'actionCardWidgets.type': 'Kind of card.',
  'actionCardWidgets.title': 'Title of the card.',
  logos: 'Logos shown on the card.',
  image: 'The logo image.',
  'image.url': 'Address of the image.',
  altText: 'Text describing the image for screen readers.',
  footerLinks: 'Groups of links in the page footer.',
  'footerLinks.id': 'Id of the link group.',
  'footerLinks.title': 'Heading of the link group.',
  links: 'Links of the group.',
  'links.id': 'Id of the link.',
  'links.url': 'Address the link opens.',
  scripts: 'Scripts embedded in the page.',
  'scripts.name': 'Name of the script.',
  'scripts.content': 'Source of the script.',
  enabled: 'Whether the script runs.',
  'scripts.description': 'What the script does.',
  headerActionId: 'actionId of the action shown in the page header.',
  metadata: 'Search and sharing metadata of the page.',
  metadataOverride: 'Search and sharing metadata of this audience, replacing the page’s.',
  'create_topic.title': 'Title of the topic.',
  'update_topic.title': 'New title of the topic.',
  'metadata.title': 'Title for search engines.',
  'metadataOverride.title': 'Title for search engines.',
  'metadata.description': 'Description for search engines.',
  'metadataOverride.description': 'Description for search engines.',
  keywords: 'Keywords for search engines.',
  author: 'Author named in the metadata.',
  robots: 'Robots directive, e.g. index, follow.',
  canonicalUrl: 'Canonical address of the page.',
  ogTitle: 'Open Graph title (link previews).',
  ogDescription: 'Open Graph description.',
  ogImageUrl: 'Open Graph image address.',
  ogImageFileId: 'Open Graph image as an uploaded file id.',
  ogImageAlt: 'Text describing the Open Graph image.',
  ogSiteName: 'Open Graph site name.',
  ogUrl: 'Open Graph address of the page.',
  twitterTitle: 'Title of X (Twitter) cards.',
  twitterDescription: 'Description of X (Twitter) cards.',
  twitterImageUrl: 'Image address of X (Twitter) cards.',
  twitterImageFileId: 'Image of X (Twitter) cards as an uploaded file id.',
  twitterImageAlt: 'Text describing the X (Twitter) card image.',
  twitterSite: 'X (Twitter) handle of the site.',
  twitterCreator: 'X (Twitter) handle of the author.',
  themeColor: 'Browser theme color, e.g. #336699.',
  customName: 'Name of the audience; unset: a generated one.',
  personRouteKey: 'Key in the page address that routes a visitor to this audience.',
  supplementaryContext: 'Extra context for the assistant on this audience’s page.',
  isNewPageAgent: 'Whether the audience uses the new page assistant.',
  actionFormIdOverride: 'Form id replacing the page’s action form for this audience; unset: keep it.',
  actionFormInstructionsOverride:
    'Instructions replacing the action form’s for this audience; unset: keep them.',
  actionUrlOverride: 'Address replacing the page’s action address for this audience; unset: keep it.',
  role: 'Who wrote the message: user or assistant.',
  'create_audience_message.content': 'Text of the message.',
  changes: 'Changes to the audience the message proposes or applied.',
  field: 'The audience field changed.',
  newValue: 'The field’s new value; null clears it.',
  'changes.status': 'State of the change: applied, reverted or saved.',
  toolCalls: 'Tool calls the assistant made in this message.',
  'toolCalls.id': 'Id of the tool call.',
  'toolCalls.name': 'Name of the tool called.',
  arguments: 'Arguments of the call.',
  result: 'What the call returned.',
  error: 'Error of the call, if it failed.',
  'toolCalls.status': 'State of the call.',
  contentParts: 'The message as typed parts (text, tool calls, artifacts, errors); unset: content only.',
  'contentParts.type': 'Kind of part: text, tool-call, artifact or error.',
  'contentParts.text': 'Text of a text part.',
  'contentParts.toolCallId': 'Id of one of the message’s toolCalls (tool-call part).',
  'contentParts.artifactId': 'Id of the artifact (artifact part).',
  'contentParts.path': 'Path of the artifact.',
  'contentParts.title': 'Title of the artifact or the error.',
  'contentParts.kind': 'Kind of artifact: email, call-script or document.',
  'contentParts.previewText': 'Short preview of the artifact; null: none.',
  'contentParts.variant': 'Kind of error: generic or provider-outage.',
  'contentParts.message': 'What went wrong (error part).',
  'contentParts.provider': 'Provider that failed (provider-outage).',
  'contentParts.incidentTitle': 'Title of the provider’s incident.',
  'contentParts.statusPageUrl': 'Address of the provider’s status page.',
  'links.text': 'Text of the link.',
  reasoning: 'The assistant’s reasoning shown with the message.',
  isInterrupted: 'Whether the message was cut off before it ended.',
  'create_asset.name': 'Name of the asset.',
  purpose: 'What it is for.',
  data: 'The stored file of the asset.',
  'data.type': 'Kind of file, e.g. image.',
  aiDescription: 'Description of the asset for assistants.',
  tags: 'Tags to find the asset by.',
  hidden: 'Whether the asset is hidden from lists.',
  'create_person.name': 'Full name of the person.',
  email: 'Email address.',
  phoneNumber: 'Phone number.',
  linkedinProfileUrl: 'Address of the LinkedIn profile.',
  slug: 'Short unique name for the person’s addresses.',
  'create_person_log.type': 'Kind of event, e.g. page_view.',
  'create_account_log.type': 'Kind of event, e.g. meeting_booked.',
  source: 'System the event comes from.',
  payload: 'Details of the event, any JSON object.',
  'create_account_log.name': 'Name of the account.',
  domain: 'Web domain of the account, e.g. example.com; equal domains are one account.',
  sortOrder: 'Position among the topics, from 0.',
  componentId: 'Id of the page component the visitor used.',
  label: 'Label of the component.',
  componentContext: 'What the component showed.',
  responseText: 'What the visitor answered or typed.',
  groundingChunkIds: 'Ids of the knowledge chunks the answer drew on.',
  options: 'Options the component offered.',
  timestamp: 'When it happened, in milliseconds since 1970.',
  eventTypes: 'Event types to deliver, e.g. page.created.',
  'create_webhook_subscription.description': 'What the subscription is for.',
};

function textOf(tool: string, path: string, parent: string | undefined, name: string): string | undefined {
  return TEXTS[`${tool}.${path}`] ?? (parent ? TEXTS[`${parent}.${name}`] : undefined) ?? TEXTS[name];
}

/**
 * Gives every input property of a tool without a description the one above, at any depth
 * (objects, arrays of objects, nullable variants).
 * @throws Error naming a property left without a description, so a new field is noticed.
 */
export function describeProperties(tool: string, schema: JsonSchema): JsonSchema {
  const visit = (node: JsonSchema, path: string, parent: string | undefined): JsonSchema => {
    const out: JsonSchema = { ...node };
    const properties = node.properties as Record<string, JsonSchema> | undefined;
    if (properties) {
      out.properties = Object.fromEntries(
        Object.entries(properties).map(([name, child]) => {
          const childPath = path ? `${path}.${name}` : name;
          const described = visit(child, childPath, name);
          if (typeof described.description !== 'string') {
            const text = textOf(tool, childPath, parent, name);
            if (!text) throw new Error(`Tool ${tool}: input property ${childPath} has no description`);
            described.description = text;
          }
          return [name, described];
        }),
      );
    }
    if (node.items && typeof node.items === 'object')
      out.items = visit(node.items as JsonSchema, path, parent);
    for (const key of ['anyOf', 'oneOf'] as const) {
      const variants = node[key];
      if (Array.isArray(variants)) out[key] = variants.map((v) => visit(v as JsonSchema, path, parent));
    }
    return out;
  };
  return visit(schema, '', undefined);
}
