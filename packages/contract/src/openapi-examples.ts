/** Examples of one operation: its JSON request body, and a body per 2xx JSON response status. */
export interface OperationExamples {
  request?: unknown;
  responses: Record<string, unknown>;
}

/**
 * An example request body for each operation that takes a JSON body, and an example body for each
 * of its 2xx JSON responses: taken from one real exchange with the server (lists cut to one item),
 * fed to the OpenAPI document only (never to the Zod schemas the MCP tools are made from), and
 * checked against the schemas by openapi-examples.test.ts.
 */
export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  createPage: {
    responses: {
      '201': {
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        name: 'Spring launch',
        title: 'Acme for freight',
        pageContext: 'Freight forwarders.',
        brandId: 'brand_acme',
        audiencesCount: 0,
        actions: [],
        actionCardWidgets: [],
        footerLinks: [],
        scripts: [],
        createdAt: '2026-11-24T04:27:38.989Z',
        updatedAt: '2026-11-24T04:27:38.989Z',
        archivedAt: null,
        deletedAt: null,
        pageType: 'inbound',
        status: 'draft',
      },
    },
    request: {
      name: 'Spring launch',
      title: 'Acme for freight',
      pageContext: 'Freight forwarders.',
      brandId: 'brand_acme',
      pageType: 'inbound',
    },
  },
  getPage: {
    responses: {
      '200': {
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        name: 'Spring launch',
        title: 'Acme for freight',
        pageContext: 'Freight forwarders.',
        brandId: 'brand_acme',
        audiencesCount: 0,
        actions: [],
        actionCardWidgets: [],
        footerLinks: [],
        scripts: [],
        createdAt: '2026-11-24T04:27:38.989Z',
        updatedAt: '2026-11-24T04:27:38.989Z',
        archivedAt: null,
        deletedAt: null,
        pageType: 'inbound',
        status: 'draft',
      },
    },
  },
  listPages: {
    responses: {
      '200': {
        items: [
          {
            pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
            name: 'Spring launch',
            title: 'Acme for freight',
            pageContext: 'Freight forwarders.',
            brandId: 'brand_acme',
            audiencesCount: 0,
            actions: [],
            actionCardWidgets: [],
            footerLinks: [],
            scripts: [],
            createdAt: '2026-11-24T04:27:38.989Z',
            updatedAt: '2026-11-24T04:27:38.989Z',
            archivedAt: null,
            deletedAt: null,
            pageType: 'inbound',
            status: 'draft',
          },
        ],
        hasMore: false,
        nextCursor: null,
        totalCount: 1,
      },
    },
  },
  createWebhookSubscription: {
    responses: {
      '201': {
        webhookSubscriptionId: 'whsub_01m85wydz6e0jss8ypat2054ht',
        url: 'https://hooks.example.com/customer-api',
        eventTypes: ['page.version.created'],
        description: 'Version events of the spring launch',
        status: 'active',
        disabledReason: null,
        createdAt: '2026-11-24T04:27:39.300Z',
        updatedAt: '2026-11-24T04:27:39.300Z',
        signingSecret: 'whsec_ZXhhbXBsZS1zaWduaW5nLXNlY3JldC0zMmJ5dGVz',
      },
    },
    request: {
      url: 'https://hooks.example.com/customer-api',
      eventTypes: ['page.version.created'],
      description: 'Version events of the spring launch',
    },
  },
  listWebhookSubscriptions: {
    responses: {
      '200': {
        items: [
          {
            webhookSubscriptionId: 'whsub_01m85wyefmesj91az05eycqtwx',
            url: 'https://hooks.example.com/customer-api',
            eventTypes: ['page.version.archived'],
            description: 'Receives page.version.archived',
            status: 'active',
            disabledReason: null,
            createdAt: '2026-11-24T04:27:39.837Z',
            updatedAt: '2026-11-24T04:27:39.837Z',
          },
        ],
        hasMore: false,
        nextCursor: null,
        totalCount: 4,
      },
    },
  },
  getWebhookSubscription: {
    responses: {
      '200': {
        webhookSubscriptionId: 'whsub_01m85wydz6e0jss8ypat2054ht',
        url: 'https://hooks.example.com/customer-api',
        eventTypes: ['page.version.created'],
        description: 'Version events of the spring launch',
        status: 'active',
        disabledReason: null,
        createdAt: '2026-11-24T04:27:39.300Z',
        updatedAt: '2026-11-24T04:27:39.300Z',
      },
    },
  },
  updateWebhookSubscription: {
    responses: {
      '200': {
        webhookSubscriptionId: 'whsub_01m85wydz6e0jss8ypat2054ht',
        url: 'https://hooks.example.com/customer-api',
        eventTypes: ['page.version.created'],
        description: 'Version events of the spring launch',
        status: 'active',
        disabledReason: null,
        createdAt: '2026-11-24T04:27:39.300Z',
        updatedAt: '2026-11-24T04:27:40.309Z',
      },
    },
    request: {
      description: 'Version events of the spring launch',
    },
  },
  rotateWebhookSubscriptionSecret: {
    responses: {
      '200': {
        webhookSubscriptionId: 'whsub_01m85wydz6e0jss8ypat2054ht',
        url: 'https://hooks.example.com/customer-api',
        eventTypes: ['page.version.created'],
        description: 'Version events of the spring launch',
        status: 'active',
        disabledReason: null,
        createdAt: '2026-11-24T04:27:39.300Z',
        updatedAt: '2026-11-24T04:27:40.474Z',
        signingSecret: 'whsec_ZXhhbXBsZS1zaWduaW5nLXNlY3JldC0zMmJ5dGVz',
      },
    },
    request: {},
  },
  createAudience: {
    responses: {
      '201': {
        audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        personId: null,
        personRouteKey: null,
        computedName: 'Spring launch · Audience 1',
        customName: 'Logistics leads',
        effectiveName: 'Logistics leads',
        isNewPageAgent: false,
        supplementaryContext: 'Visitors from logistics companies.',
        actionFormIdOverride: null,
        actionFormInstructionsOverride: null,
        actionUrlOverride: null,
        latestVersion: null,
        publishedVersion: null,
        effectiveMetadata: {},
        createdAt: '2026-11-24T04:27:40.700Z',
        archivedAt: null,
        status: 'draft',
      },
    },
    request: {
      customName: 'Logistics leads',
      supplementaryContext: 'Visitors from logistics companies.',
    },
  },
  getAudience: {
    responses: {
      '200': {
        audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        personId: null,
        personRouteKey: null,
        computedName: 'Spring launch · Audience 1',
        customName: 'Logistics leads',
        effectiveName: 'Logistics leads',
        isNewPageAgent: false,
        supplementaryContext: 'Visitors from logistics companies.',
        actionFormIdOverride: null,
        actionFormInstructionsOverride: null,
        actionUrlOverride: null,
        latestVersion: null,
        publishedVersion: null,
        effectiveMetadata: {},
        createdAt: '2026-11-24T04:27:40.700Z',
        archivedAt: null,
        status: 'draft',
      },
    },
  },
  listAudiences: {
    responses: {
      '200': {
        items: [
          {
            audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
            pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
            personId: null,
            personRouteKey: null,
            computedName: 'Spring launch · Audience 1',
            customName: 'Logistics leads',
            effectiveName: 'Logistics leads',
            isNewPageAgent: false,
            supplementaryContext: 'Visitors from logistics companies.',
            actionFormIdOverride: null,
            actionFormInstructionsOverride: null,
            actionUrlOverride: null,
            latestVersion: null,
            publishedVersion: null,
            effectiveMetadata: {},
            createdAt: '2026-11-24T04:27:40.700Z',
            archivedAt: null,
            status: 'draft',
          },
        ],
        hasMore: false,
        nextCursor: null,
        totalCount: 1,
      },
    },
  },
  createAudienceVersion: {
    responses: {
      '201': {
        versionId: 'version_01m85wyg18egerf2yhqe6n94s6',
        audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
        versionNumber: 1,
        isNewPageAgent: false,
        supplementaryContext: 'Visitors from logistics companies.',
        queueDurationMs: null,
        createdAt: '2026-11-24T04:27:41.480Z',
        becameDraftAt: '2026-11-24T04:27:41.480Z',
        cancelledAt: null,
        archivedAt: null,
        obsoleteAt: null,
        publishedAt: null,
        queuedAt: null,
        status: 'draft',
      },
    },
    request: {},
  },
  publishAudienceVersion: {
    responses: {
      '200': {
        versionId: 'version_01m85wyg18egerf2yhqe6n94s6',
        audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
        versionNumber: 1,
        isNewPageAgent: false,
        supplementaryContext: 'Visitors from logistics companies.',
        queueDurationMs: null,
        createdAt: '2026-11-24T04:27:41.480Z',
        becameDraftAt: '2026-11-24T04:27:41.480Z',
        cancelledAt: null,
        archivedAt: null,
        obsoleteAt: null,
        publishedAt: '2026-11-24T04:27:42.152Z',
        queuedAt: null,
        status: 'published',
      },
    },
    request: {},
  },
  getAudienceVersion: {
    responses: {
      '200': {
        versionId: 'version_01m85wyhjveqwt9hd2k4r4zyrp',
        audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
        versionNumber: 3,
        isNewPageAgent: false,
        supplementaryContext: 'Visitors from logistics companies.',
        queueDurationMs: null,
        createdAt: '2026-11-24T04:27:43.067Z',
        becameDraftAt: '2026-11-24T04:27:43.067Z',
        cancelledAt: null,
        archivedAt: null,
        obsoleteAt: null,
        publishedAt: null,
        queuedAt: null,
        status: 'draft',
      },
    },
  },
  cancelAudienceVersion: {
    responses: {
      '200': {
        versionId: 'version_01m85wyhjveqwt9hd2k4r4zyrp',
        audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
        versionNumber: 3,
        isNewPageAgent: false,
        supplementaryContext: 'Visitors from logistics companies.',
        queueDurationMs: null,
        createdAt: '2026-11-24T04:27:43.067Z',
        becameDraftAt: '2026-11-24T04:27:43.067Z',
        cancelledAt: '2026-11-24T04:27:43.508Z',
        archivedAt: null,
        obsoleteAt: null,
        publishedAt: null,
        queuedAt: null,
        status: 'cancelled',
      },
    },
    request: {},
  },
  createAudienceMessage: {
    responses: {
      '201': {
        messageId: 'message_01m85wyj4bectreyqqzzy8hzmz',
        role: 'user',
        content: 'Focus the page on freight forwarders.',
        timestamp: 1795494463619,
        hasSnapshot: false,
        toolCalls: null,
        changes: null,
        contentParts: null,
        reasoning: null,
        isInterrupted: false,
      },
    },
    request: {
      role: 'user',
      content: 'Focus the page on freight forwarders.',
    },
  },
  getAudienceMessages: {
    responses: {
      '200': {
        conversation: {
          conversationId: 'conversation_01m85wyj45ecrvkbe6dvmaege3',
          audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
          publishedMessageId: null,
          createdAt: '2026-11-24T04:27:43.619Z',
          updatedAt: '2026-11-24T04:27:43.876Z',
        },
        messages: [
          {
            messageId: 'message_01m85wyj4bectreyqqzzy8hzmz',
            role: 'user',
            content: 'Focus the page on freight forwarders.',
            timestamp: 1795494463619,
            hasSnapshot: false,
            toolCalls: null,
            changes: null,
            contentParts: null,
            reasoning: null,
            isInterrupted: false,
          },
          {
            messageId: 'message_01m85wyjcre6q88vdmers28hzg',
            role: 'assistant',
            content: 'I updated the context.',
            timestamp: 1795494463876,
            hasSnapshot: true,
            toolCalls: null,
            changes: [
              {
                changeId: 'change_01m85wyjcsea29jzbc6g1gn6zp',
                field: 'supplementaryContext',
                previousValue: 'Visitors from logistics companies.',
                newValue: 'Freight forwarders evaluating Acme.',
                status: 'applied',
              },
            ],
            contentParts: null,
            reasoning: null,
            isInterrupted: false,
          },
        ],
        context: {
          audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
          pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
          pageContext: 'Freight forwarders.',
          currentSupplementaryContext: 'Freight forwarders evaluating Acme.',
          currentMetaTitle: null,
          currentMetaDescription: null,
          currentMetaKeywords: null,
        },
        pendingChanges: [],
      },
    },
  },
  restoreAudienceMessage: {
    responses: {
      '200': {
        success: true,
        messageId: 'message_01m85wyjcre6q88vdmers28hzg',
      },
    },
    request: {},
  },
  publishAudienceMessage: {
    responses: {
      '200': {
        conversation: {
          conversationId: 'conversation_01m85wyj45ecrvkbe6dvmaege3',
          audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
          publishedMessageId: 'message_01m85wyjcre6q88vdmers28hzg',
          createdAt: '2026-11-24T04:27:43.619Z',
          updatedAt: '2026-11-24T04:27:44.751Z',
        },
        messages: [
          {
            messageId: 'message_01m85wyj4bectreyqqzzy8hzmz',
            role: 'user',
            content: 'Focus the page on freight forwarders.',
            timestamp: 1795494463619,
            hasSnapshot: false,
            toolCalls: null,
            changes: null,
            contentParts: null,
            reasoning: null,
            isInterrupted: false,
          },
          {
            messageId: 'message_01m85wyjcre6q88vdmers28hzg',
            role: 'assistant',
            content: 'I updated the context.',
            timestamp: 1795494463876,
            hasSnapshot: true,
            toolCalls: null,
            changes: [
              {
                changeId: 'change_01m85wyjcsea29jzbc6g1gn6zp',
                field: 'supplementaryContext',
                previousValue: 'Visitors from logistics companies.',
                newValue: 'Freight forwarders evaluating Acme.',
                status: 'applied',
              },
            ],
            contentParts: null,
            reasoning: null,
            isInterrupted: false,
          },
        ],
        context: {
          audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
          pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
          pageContext: 'Freight forwarders.',
          currentSupplementaryContext: 'Freight forwarders evaluating Acme.',
          currentMetaTitle: null,
          currentMetaDescription: null,
          currentMetaKeywords: null,
        },
        pendingChanges: [],
      },
    },
    request: {},
  },
  createAudienceSession: {
    responses: {
      '201': {
        audienceSessionId: 'session_01m85wyke9edbbbj1w9r2yw2j3',
        audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        createdAt: '2026-11-24T04:27:44.969Z',
      },
    },
    request: {
      audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
    },
  },
  createAudienceSessionInteraction: {
    responses: {
      '201': {
        componentId: 'hero-cta',
        label: 'Book a demo',
        groundingChunkIds: [],
        options: [],
        timestamp: 1795494465036,
      },
    },
    request: {
      componentId: 'hero-cta',
      label: 'Book a demo',
    },
  },
  getAudienceSessionInteractions: {
    responses: {
      '200': {
        found: true,
        interactions: [
          {
            componentId: 'hero-cta',
            label: 'Book a demo',
            groundingChunkIds: [],
            options: [],
            timestamp: 1795494465036,
          },
        ],
      },
    },
  },
  archiveAudience: {
    responses: {
      '200': {
        audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        personId: null,
        personRouteKey: null,
        computedName: 'Spring launch · Audience 1',
        customName: 'Logistics leads',
        effectiveName: 'Logistics leads',
        isNewPageAgent: false,
        supplementaryContext: 'Freight forwarders evaluating Acme.',
        actionFormIdOverride: null,
        actionFormInstructionsOverride: null,
        actionUrlOverride: null,
        latestVersion: {
          versionId: 'version_01m85wyhjveqwt9hd2k4r4zyrp',
          audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
          versionNumber: 3,
          isNewPageAgent: false,
          supplementaryContext: 'Visitors from logistics companies.',
          queueDurationMs: null,
          createdAt: '2026-11-24T04:27:43.067Z',
          becameDraftAt: '2026-11-24T04:27:43.067Z',
          cancelledAt: '2026-11-24T04:27:43.508Z',
          archivedAt: null,
          obsoleteAt: null,
          publishedAt: null,
          queuedAt: null,
        },
        publishedVersion: {
          versionId: 'version_01m85wyh24en6t9j03k5b5bp28',
          audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
          versionNumber: 2,
          isNewPageAgent: false,
          supplementaryContext: 'Freight forwarders.',
          queueDurationMs: null,
          createdAt: '2026-11-24T04:27:42.532Z',
          becameDraftAt: '2026-11-24T04:27:42.532Z',
          cancelledAt: null,
          archivedAt: null,
          obsoleteAt: null,
          publishedAt: '2026-11-24T04:27:42.857Z',
          queuedAt: null,
        },
        effectiveMetadata: {},
        createdAt: '2026-11-24T04:27:40.700Z',
        archivedAt: '2026-11-24T04:27:45.200Z',
        status: 'archived',
      },
    },
    request: {},
  },
  restoreAudience: {
    responses: {
      '200': {
        audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        personId: null,
        personRouteKey: null,
        computedName: 'Spring launch · Audience 1',
        customName: 'Logistics leads',
        effectiveName: 'Logistics leads',
        isNewPageAgent: false,
        supplementaryContext: 'Freight forwarders evaluating Acme.',
        actionFormIdOverride: null,
        actionFormInstructionsOverride: null,
        actionUrlOverride: null,
        latestVersion: {
          versionId: 'version_01m85wyhjveqwt9hd2k4r4zyrp',
          audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
          versionNumber: 3,
          isNewPageAgent: false,
          supplementaryContext: 'Visitors from logistics companies.',
          queueDurationMs: null,
          createdAt: '2026-11-24T04:27:43.067Z',
          becameDraftAt: '2026-11-24T04:27:43.067Z',
          cancelledAt: '2026-11-24T04:27:43.508Z',
          archivedAt: null,
          obsoleteAt: null,
          publishedAt: null,
          queuedAt: null,
        },
        publishedVersion: {
          versionId: 'version_01m85wyh24en6t9j03k5b5bp28',
          audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
          versionNumber: 2,
          isNewPageAgent: false,
          supplementaryContext: 'Freight forwarders.',
          queueDurationMs: null,
          createdAt: '2026-11-24T04:27:42.532Z',
          becameDraftAt: '2026-11-24T04:27:42.532Z',
          cancelledAt: null,
          archivedAt: null,
          obsoleteAt: null,
          publishedAt: '2026-11-24T04:27:42.857Z',
          queuedAt: null,
        },
        effectiveMetadata: {},
        createdAt: '2026-11-24T04:27:40.700Z',
        archivedAt: null,
        status: 'published',
      },
    },
    request: {},
  },
  archivePage: {
    responses: {
      '200': {
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        name: 'Spring launch',
        title: 'Acme for freight',
        pageContext: 'Freight forwarders.',
        brandId: 'brand_acme',
        audiencesCount: 1,
        actions: [],
        actionCardWidgets: [],
        footerLinks: [],
        scripts: [],
        createdAt: '2026-11-24T04:27:38.989Z',
        updatedAt: '2026-11-24T04:27:45.650Z',
        archivedAt: '2026-11-24T04:27:45.650Z',
        deletedAt: null,
        pageType: 'inbound',
        status: 'archived',
      },
    },
    request: {},
  },
  restorePage: {
    responses: {
      '200': {
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        name: 'Spring launch',
        title: 'Acme for freight',
        pageContext: 'Freight forwarders.',
        brandId: 'brand_acme',
        audiencesCount: 1,
        actions: [],
        actionCardWidgets: [],
        footerLinks: [],
        scripts: [],
        createdAt: '2026-11-24T04:27:38.989Z',
        updatedAt: '2026-11-24T04:27:45.743Z',
        archivedAt: null,
        deletedAt: null,
        pageType: 'inbound',
        status: 'draft',
      },
    },
    request: {},
  },
  deletePage: {
    responses: {
      '200': {
        pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
        name: 'Spring launch',
        title: 'Acme for freight',
        pageContext: 'Freight forwarders.',
        brandId: 'brand_acme',
        audiencesCount: 1,
        actions: [],
        actionCardWidgets: [],
        footerLinks: [],
        scripts: [],
        createdAt: '2026-11-24T04:27:38.989Z',
        updatedAt: '2026-11-24T04:27:45.811Z',
        archivedAt: null,
        deletedAt: '2026-11-24T04:27:45.811Z',
        pageType: 'inbound',
        status: 'draft',
      },
    },
  },
  createPerson: {
    responses: {
      '201': {
        personId: 'person_01m85wymn4edwbtx3qqcfavbgv',
        name: 'Jane Doe',
        email: 'jane.doe@example.com',
        domain: 'example.com',
        slug: 'jane-doe',
        createdAt: '2026-11-24T04:27:46.195Z',
        updatedAt: '2026-11-24T04:27:46.195Z',
        accountId: 'account_01m85wymmkej1v3r2b6ah3jxa9',
      },
    },
    request: {
      name: 'Jane Doe',
      email: 'jane.doe@example.com',
    },
  },
  createPersonLog: {
    responses: {
      '201': {
        personLogId: 'personlog_01m85wymy7em2vt968n667vyz6',
        personId: 'person_01m85wymn4edwbtx3qqcfavbgv',
        accountId: 'account_01m85wymmkej1v3r2b6ah3jxa9',
        source: 'crm',
        type: 'call-logged',
        createdAt: '2026-11-24T04:27:46.503Z',
      },
    },
    request: {
      personId: 'person_01m85wymn4edwbtx3qqcfavbgv',
      source: 'crm',
      type: 'call-logged',
      payload: {
        minutes: 12,
      },
    },
  },
  deletePersonLog: {
    responses: {
      '200': {
        activityId: 'activity_01m85wymy7em2bvbxjq3x67kc3',
        accountId: 'account_01m85wymmkej1v3r2b6ah3jxa9',
        personId: 'person_01m85wymn4edwbtx3qqcfavbgv',
        personLogId: 'personlog_01m85wymy7em2vt968n667vyz6',
        personName: 'Jane Doe',
        source: 'crm',
        type: 'call-logged',
        payload: {
          minutes: 12,
        },
        createdAt: '2026-11-24T04:27:46.503Z',
        updatedAt: '2026-11-24T04:27:46.566Z',
        deletedAt: '2026-11-24T04:27:46.566Z',
      },
    },
  },
  createAccountLog: {
    responses: {
      '200': {
        accountLogId: 'accountlog_01m85wyn7ce3jakes7f00e41yq',
        accountId: 'account_01m85wyn6xecw864a7q9z0tmj9',
        source: 'crm',
        type: 'deal-won',
        createdAt: '2026-11-24T04:27:46.781Z',
      },
      '201': {
        accountLogId: 'accountlog_01m85wyn7ce3jakes7f00e41yq',
        accountId: 'account_01m85wyn6xecw864a7q9z0tmj9',
        source: 'crm',
        type: 'deal-won',
        createdAt: '2026-11-24T04:27:46.781Z',
      },
    },
    request: {
      source: 'crm',
      type: 'deal-won',
      payload: {
        plan: 'team',
      },
      domain: 'acme.example',
      name: 'Acme',
      idempotencyKey: 'deal-2026-0042',
    },
  },
  listAccounts: {
    responses: {
      '200': {
        items: [
          {
            accountId: 'account_01m85wyn6xecw864a7q9z0tmj9',
            domain: 'acme.example',
            name: 'Acme',
            createdAt: '2026-11-24T04:27:46.781Z',
            updatedAt: '2026-11-24T04:27:46.781Z',
            latestActivityAt: '2026-11-24T04:27:46.781Z',
            linkedPersonsCount: 0,
          },
        ],
        hasMore: false,
        nextCursor: null,
        totalCount: 2,
      },
    },
  },
  getAccount: {
    responses: {
      '200': {
        accountId: 'account_01m85wyn6xecw864a7q9z0tmj9',
        domain: 'acme.example',
        name: 'Acme',
        createdAt: '2026-11-24T04:27:46.781Z',
        updatedAt: '2026-11-24T04:27:46.781Z',
        latestActivityAt: '2026-11-24T04:27:46.781Z',
        linkedPersons: [],
      },
    },
  },
  listAccountActivity: {
    responses: {
      '200': {
        items: [
          {
            activityId: 'activity_01m85wyn7ce3hrctrqqaa7m3hw',
            accountId: 'account_01m85wyn6xecw864a7q9z0tmj9',
            accountLogId: 'accountlog_01m85wyn7ce3jakes7f00e41yq',
            source: 'crm',
            type: 'deal-won',
            payload: {
              plan: 'team',
            },
            idempotencyKey: 'deal-2026-0042',
            createdAt: '2026-11-24T04:27:46.781Z',
            updatedAt: '2026-11-24T04:27:46.781Z',
          },
        ],
        hasMore: false,
        nextCursor: null,
        totalCount: 1,
      },
    },
  },
  deleteAccountLog: {
    responses: {
      '200': {
        activityId: 'activity_01m85wyn7ce3hrctrqqaa7m3hw',
        accountId: 'account_01m85wyn6xecw864a7q9z0tmj9',
        accountLogId: 'accountlog_01m85wyn7ce3jakes7f00e41yq',
        source: 'crm',
        type: 'deal-won',
        payload: {
          plan: 'team',
        },
        idempotencyKey: 'deal-2026-0042',
        createdAt: '2026-11-24T04:27:46.781Z',
        updatedAt: '2026-11-24T04:27:46.978Z',
        deletedAt: '2026-11-24T04:27:46.978Z',
      },
    },
  },
  createTopic: {
    responses: {
      '201': {
        topicId: 'topic_01m85wynhwepwb0j1sg5tnwr7p',
        title: 'Pricing',
        purpose: null,
        sortOrder: 1,
        isDefault: false,
        createdAt: '2026-11-24T04:27:47.132Z',
        updatedAt: '2026-11-24T04:27:47.132Z',
        entries: [],
      },
    },
    request: {
      title: 'Pricing',
      sortOrder: 1,
    },
  },
  getTopic: {
    responses: {
      '200': {
        topicId: 'topic_01m85wynhwepwb0j1sg5tnwr7p',
        title: 'Pricing',
        purpose: null,
        sortOrder: 1,
        isDefault: false,
        createdAt: '2026-11-24T04:27:47.132Z',
        updatedAt: '2026-11-24T04:27:47.132Z',
        entries: [],
      },
    },
  },
  listTopics: {
    responses: {
      '200': {
        items: [
          {
            topicId: 'topic_01m85wyngbeh3vfrczp3ay7efx',
            title: 'General',
            purpose: null,
            sortOrder: 0,
            isDefault: true,
            createdAt: '2026-11-24T04:27:47.083Z',
            updatedAt: '2026-11-24T04:27:47.083Z',
            entries: [],
          },
        ],
        hasMore: false,
        nextCursor: null,
        totalCount: 2,
      },
    },
  },
  updateTopic: {
    responses: {
      '200': {
        topicId: 'topic_01m85wynhwepwb0j1sg5tnwr7p',
        title: 'Pricing and plans',
        purpose: null,
        sortOrder: 1,
        isDefault: false,
        createdAt: '2026-11-24T04:27:47.132Z',
        updatedAt: '2026-11-24T04:27:47.281Z',
        entries: [],
      },
    },
    request: {
      title: 'Pricing and plans',
    },
  },
  createAsset: {
    responses: {
      '201': {
        assetId: 'asset_01m85wyns9eg0vshm243rd21zv',
        tenantId: 'tenant_01m85wy8mwersaxepdgdzgd167',
        name: 'Logo',
        tags: ['brand'],
        hidden: false,
        data: {
          type: 'logo',
          fileId: 'file_logo',
        },
        createdAt: '2026-11-24T04:27:47.369Z',
        updatedAt: '2026-11-24T04:27:47.369Z',
        lifecycleState: 'active',
        downloadUrl:
          'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/download?expires=1795495367&signature=n63hG3BwhVMvOYdv-JJOiCOxkKtrdNBTHAI6hxL-xHs',
        previewDownloadUrl:
          'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/preview/download?expires=1795495367&signature=_nLEPFjxN9S75JQ9jmAps-Uwt0_fH_GPXGWIcMtrE9Q',
      },
    },
    request: {
      name: 'Logo',
      data: {
        type: 'logo',
        fileId: 'file_logo',
      },
      tags: ['brand'],
    },
  },
  putAssetContent: {
    responses: {
      '200': {
        assetId: 'asset_01m85wyns9eg0vshm243rd21zv',
        tenantId: 'tenant_01m85wy8mwersaxepdgdzgd167',
        name: 'Logo',
        tags: ['brand'],
        hidden: false,
        data: {
          type: 'logo',
          fileId: 'file_logo',
        },
        createdAt: '2026-11-24T04:27:47.369Z',
        updatedAt: '2026-11-24T04:27:47.809Z',
        lifecycleState: 'active',
        downloadUrl:
          'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/download?expires=1795495367&signature=n63hG3BwhVMvOYdv-JJOiCOxkKtrdNBTHAI6hxL-xHs',
        previewDownloadUrl:
          'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/preview/download?expires=1795495367&signature=_nLEPFjxN9S75JQ9jmAps-Uwt0_fH_GPXGWIcMtrE9Q',
      },
    },
  },
  putAssetPreview: {
    responses: {
      '200': {
        assetId: 'asset_01m85wyns9eg0vshm243rd21zv',
        tenantId: 'tenant_01m85wy8mwersaxepdgdzgd167',
        name: 'Logo',
        tags: ['brand'],
        hidden: false,
        data: {
          type: 'logo',
          fileId: 'file_logo',
        },
        createdAt: '2026-11-24T04:27:47.369Z',
        updatedAt: '2026-11-24T04:27:47.911Z',
        lifecycleState: 'active',
        downloadUrl:
          'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/download?expires=1795495367&signature=n63hG3BwhVMvOYdv-JJOiCOxkKtrdNBTHAI6hxL-xHs',
        previewDownloadUrl:
          'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/preview/download?expires=1795495367&signature=_nLEPFjxN9S75JQ9jmAps-Uwt0_fH_GPXGWIcMtrE9Q',
      },
    },
  },
  trashAsset: {
    responses: {
      '200': {
        assetId: 'asset_01m85wyns9eg0vshm243rd21zv',
        tenantId: 'tenant_01m85wy8mwersaxepdgdzgd167',
        name: 'Logo',
        tags: ['brand'],
        hidden: false,
        data: {
          type: 'logo',
          fileId: 'file_logo',
        },
        createdAt: '2026-11-24T04:27:47.369Z',
        updatedAt: '2026-11-24T04:27:48.547Z',
        trashedAt: '2026-11-24T04:27:48.547Z',
        lifecycleState: 'active',
        downloadUrl:
          'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/download?expires=1795495368&signature=pQ9x2nK6oH-8yIn2aw7k01nERgM9h7sZushH7Uhebqs',
        previewDownloadUrl:
          'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/preview/download?expires=1795495368&signature=qhVna_l74qH-4QmAuM7O4sXpgp0a4stIz18HvatxXsU',
      },
    },
    request: {},
  },
  listTrashedAssets: {
    responses: {
      '200': {
        items: [
          {
            assetId: 'asset_01m85wyns9eg0vshm243rd21zv',
            tenantId: 'tenant_01m85wy8mwersaxepdgdzgd167',
            name: 'Logo',
            tags: ['brand'],
            hidden: false,
            data: {
              type: 'logo',
              fileId: 'file_logo',
            },
            createdAt: '2026-11-24T04:27:47.369Z',
            updatedAt: '2026-11-24T04:27:48.547Z',
            trashedAt: '2026-11-24T04:27:48.547Z',
            lifecycleState: 'active',
            downloadUrl:
              'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/download?expires=1795495368&signature=pQ9x2nK6oH-8yIn2aw7k01nERgM9h7sZushH7Uhebqs',
            previewDownloadUrl:
              'http://127.0.0.1:3000/v0/assets/asset_01m85wyns9eg0vshm243rd21zv/preview/download?expires=1795495368&signature=qhVna_l74qH-4QmAuM7O4sXpgp0a4stIz18HvatxXsU',
          },
        ],
        hasMore: false,
        nextCursor: null,
        totalCount: 1,
      },
    },
  },
  listWebhookDeliveries: {
    responses: {
      '200': {
        items: [
          {
            deliveryId: 'whdel_01m85wyhspegc8sa78tws41tz9',
            webhookSubscriptionId: 'whsub_01m85wydz6e0jss8ypat2054ht',
            eventId: 'evt_01m85wyhpqe3c9hh0593mwvtxg',
            eventType: 'page.version.created',
            attempt: 1,
            status: 'succeeded',
            responseStatus: 200,
            durationMs: 42,
            error: null,
            createdAt: '2026-11-24T04:27:43.286Z',
            nextAttemptAt: null,
          },
        ],
        hasMore: false,
        nextCursor: null,
        totalCount: 3,
      },
    },
  },
  redeliverWebhookDelivery: {
    responses: {
      '202': {
        deliveryId: 'whdel_01m85wyqcseg9ay1pab4kzdxmy',
        webhookSubscriptionId: 'whsub_01m85wydz6e0jss8ypat2054ht',
        eventId: 'evt_01m85wyhpqe3c9hh0593mwvtxg',
        eventType: 'page.version.created',
        attempt: 2,
        status: 'pending',
        responseStatus: null,
        durationMs: null,
        error: null,
        createdAt: '2026-11-24T04:27:49.017Z',
        nextAttemptAt: '2026-11-24T04:27:49.017Z',
      },
    },
    request: {},
  },
  recoverWebhookDeliveries: {
    responses: {
      '202': {
        queued: 0,
      },
    },
    request: {
      since: '2026-11-24T04:26:48.717Z',
    },
  },
  deleteWebhookSubscription: {
    responses: {
      '200': {
        webhookSubscriptionId: 'whsub_01m85wydz6e0jss8ypat2054ht',
        url: 'https://hooks.example.com/customer-api',
        eventTypes: ['page.version.created'],
        description: 'Version events of the spring launch',
        status: 'disabled',
        disabledReason: 'Deleted.',
        createdAt: '2026-11-24T04:27:39.300Z',
        updatedAt: '2026-11-24T04:27:49.260Z',
      },
    },
  },
};

/** An example delivery body for each webhook event type (the audience version of the examples above). */
export const WEBHOOK_EXAMPLES: Record<string, unknown> = {
  'page.version.created': {
    timestamp: '2026-11-24T04:27:43.067Z',
    eventId: 'evt_01m85wyhpqe3c9hh0593mwvtxg',
    payload: {
      type: 'page.version.created',
      pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
      audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
      versionId: 'version_01m85wyhjveqwt9hd2k4r4zyrp',
      status: 'draft',
      createdAt: '2026-11-24T04:27:43.067Z',
    },
  },
  'page.version.published': {
    timestamp: '2026-11-24T04:27:43.067Z',
    eventId: 'evt_01m85wyj2xe6b9cw4n0s2q7r8t',
    payload: {
      type: 'page.version.published',
      pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
      audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
      versionId: 'version_01m85wyhjveqwt9hd2k4r4zyrp',
      status: 'published',
      createdAt: '2026-11-24T04:27:43.067Z',
    },
  },
  'page.version.cancelled': {
    timestamp: '2026-11-24T04:27:43.067Z',
    eventId: 'evt_01m85wyj3ae5kd2fh7xg9mbp4v',
    payload: {
      type: 'page.version.cancelled',
      pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
      audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
      versionId: 'version_01m85wyhjveqwt9hd2k4r4zyrp',
      status: 'cancelled',
      createdAt: '2026-11-24T04:27:43.067Z',
    },
  },
  'page.version.archived': {
    timestamp: '2026-11-24T04:27:43.067Z',
    eventId: 'evt_01m85wyj3qe0w1ncz8y5tr6h2k',
    payload: {
      type: 'page.version.archived',
      pageId: 'page_01m85wydkwe8g8cc11wmckhw1r',
      audienceId: 'audience_01m85wyf8we809zzn63w9vp9bm',
      versionId: 'version_01m85wyhjveqwt9hd2k4r4zyrp',
      status: 'archived',
      createdAt: '2026-11-24T04:27:43.067Z',
    },
  },
};
