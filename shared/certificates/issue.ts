import type { CertificateRecord } from '../model/certificate.ts';
import type { CertificateProcessState, Validations } from '../model/certificate-process.ts';
import type { Issued, RequestView } from './authority.ts';

/**
 * What the authority is shown of a request and what an issued request becomes: one definition for
 * the renewal that issues at once and for the DCV check that issues once everything is validated.
 */

/** The request as the authority sees it: the stored state, with `validations` as they now stand. */
export function requestView(
  processId: number,
  state: CertificateProcessState,
  requestedAt: Date,
  validations: Validations = state.validations,
): RequestView {
  return {
    processId,
    validationLevel: state.validationLevel,
    period: state.period,
    csrSha256: state.csrSummary.sha256,
    uniqueValue: state.uniqueValue,
    names: [state.commonName, ...state.san.filter((name) => name !== state.commonName)],
    ...(state.subject.organization ? { organization: state.subject.organization } : {}),
    requestedAt,
    validations,
    csr: state.csr,
    ...(state.order ? { order: state.order } : {}),
  };
}

/** The certificate record of a request the authority issued (`at`: the wire time of issuance). */
export function issuedCertificate(
  ids: { certificate: number; process: number },
  customer: string,
  state: CertificateProcessState,
  issued: Issued,
  at: string,
): CertificateRecord {
  return {
    id: ids.certificate,
    customer,
    product: state.product,
    commonName: state.commonName,
    san: [state.commonName, ...state.san],
    status: 'ACTIVE',
    serialNumber: issued.serialNumber,
    startDate: issued.startDate,
    expiryDate: issued.expiryDate,
    ...(issued.subscriptionEndDate ? { subscriptionEndDate: issued.subscriptionEndDate } : {}),
    ...(state.subject.organization ? { organization: state.subject.organization } : {}),
    keyType: `${state.csrSummary.keyType}-${state.csrSummary.curve ?? state.csrSummary.keySize}`,
    processId: ids.process,
    createdDate: at,
    updatedDate: at,
    csr: state.csr,
    ...(issued.certificate !== undefined ? { certificate: issued.certificate, chain: issued.chain ?? [] } : {}),
  };
}
