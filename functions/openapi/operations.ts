import type { OperationDocs } from '../../shared/http/api-docs.ts';
import { docs as certificate } from '../certificate/openapi.ts';
import { docs as certificateDownload } from '../certificate-download/openapi.ts';
import { docs as contact } from '../contact/openapi.ts';
import { docs as contactCreate } from '../contact-create/openapi.ts';
import { docs as contactDelete } from '../contact-delete/openapi.ts';
import { docs as contactPropertiesAdd } from '../contact-properties-add/openapi.ts';
import { docs as contactPropertiesUpdate } from '../contact-properties-update/openapi.ts';
import { docs as contactSplit } from '../contact-split/openapi.ts';
import { docs as contactUpdate } from '../contact-update/openapi.ts';
import { docs as contactValidate } from '../contact-validate/openapi.ts';
import { docs as contacts } from '../contacts/openapi.ts';
import { docs as exchangeRatesInfo } from '../exchange-rates-info/openapi.ts';
import { docs as exchangeRatesList } from '../exchange-rates-list/openapi.ts';
import { docs as notification } from '../notification/openapi.ts';
import { docs as notificationAck } from '../notification-ack/openapi.ts';
import { docs as notificationPoll } from '../notification-poll/openapi.ts';
import { docs as notifications } from '../notifications/openapi.ts';
import { docs as pricelist } from '../pricelist/openapi.ts';
import { docs as process } from '../process/openapi.ts';
import { docs as processCancel } from '../process-cancel/openapi.ts';
import { docs as processInfo } from '../process-info/openapi.ts';
import { docs as processResend } from '../process-resend/openapi.ts';
import { docs as processes } from '../processes/openapi.ts';
import { docs as provider } from '../provider/openapi.ts';
import { docs as providerInfo } from '../provider-info/openapi.ts';
import { docs as providers } from '../providers/openapi.ts';
import { docs as renew } from '../renew/openapi.ts';
import { docs as sslProduct } from '../ssl-product/openapi.ts';
import { docs as sslProducts } from '../ssl-products/openapi.ts';
import { docs as tldInfo } from '../tld-info/openapi.ts';
import { docs as transfer } from '../transfer/openapi.ts';
import { docs as transferInfo } from '../transfer-info/openapi.ts';
import { docs as transferLatest } from '../transfer-latest/openapi.ts';
import { docs as webhook } from '../webhook/openapi.ts';
import { docs as webhookDeadLetters } from '../webhook-dead-letters/openapi.ts';
import { docs as webhookDelete } from '../webhook-delete/openapi.ts';
import { docs as webhookPut } from '../webhook-put/openapi.ts';
import { docs as webhookRedeliver } from '../webhook-redeliver/openapi.ts';
import { docs as webhookRotate } from '../webhook-rotate/openapi.ts';
import { docs as zone } from '../zone/openapi.ts';
import { docs as openapi } from './openapi.ts';

/**
 * Each route's `functions/<dir>/openapi.ts`, by route dir. Static imports, so every bundler and
 * test runner sees them; the generator fails loudly for a route of the table that is missing here.
 */
export const operationDocs: Readonly<Record<string, OperationDocs>> = {
  'provider-info': providerInfo,
  pricelist,
  zone,
  transfer,
  renew,
  'process-info': processInfo,
  process,
  processes,
  'process-cancel': processCancel,
  'process-resend': processResend,
  'transfer-info': transferInfo,
  'tld-info': tldInfo,
  provider,
  openapi,
  certificate,
  'certificate-download': certificateDownload,
  'transfer-latest': transferLatest,
  providers,
  'ssl-products': sslProducts,
  'ssl-product': sslProduct,
  'exchange-rates-info': exchangeRatesInfo,
  'exchange-rates-list': exchangeRatesList,
  'notification-poll': notificationPoll,
  notifications,
  notification,
  'notification-ack': notificationAck,
  'webhook-put': webhookPut,
  webhook,
  'webhook-delete': webhookDelete,
  'webhook-rotate': webhookRotate,
  'webhook-dead-letters': webhookDeadLetters,
  'webhook-redeliver': webhookRedeliver,
  contacts,
  contact,
  'contact-create': contactCreate,
  'contact-delete': contactDelete,
  'contact-update': contactUpdate,
  'contact-validate': contactValidate,
  'contact-split': contactSplit,
  'contact-properties-add': contactPropertiesAdd,
  'contact-properties-update': contactPropertiesUpdate,
};
