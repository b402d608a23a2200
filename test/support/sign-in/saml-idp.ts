import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inflateRawSync } from 'node:zlib';
import { SignedXml } from 'xml-crypto';

const fixture = (name: string) => readFileSync(new URL(`../../fixtures/saml/${name}`, import.meta.url), 'utf8');
export const IDP_CERT = fixture('idp-cert.pem');
const IDP_KEY = fixture('idp-key.pem');
/** A key pair the workspace does not trust. */
export const OTHER_KEY = fixture('other-key.pem');
export const OTHER_CERT = fixture('other-cert.pem');

export interface AssertionOptions {
  email: string;
  /** The AuthnRequest ID the response answers. */
  inResponseTo: string;
  acsUrl: string;
  audience: string;
  issuer: string;
  /** Validity relative to now, in ms (default: from 1 minute ago to 5 minutes ahead). */
  notBeforeMs?: number;
  notOnOrAfterMs?: number;
  key?: string;
  cert?: string;
  /** Changes the XML after it is signed (a tampered response). */
  tamper?: (signedXml: string) => string;
}

/** The ID of the AuthnRequest in a redirect-binding URL (SAMLRequest is deflated, base64). */
export function requestIdOf(idpUrl: string): string {
  const request = new URL(idpUrl).searchParams.get('SAMLRequest');
  if (!request) throw new Error(`no SAMLRequest in ${idpUrl}`);
  const xml = inflateRawSync(Buffer.from(request, 'base64')).toString('utf8');
  const id = /\sID="([^"]+)"/.exec(xml)?.[1];
  if (!id) throw new Error(`no ID in ${xml}`);
  return id;
}

/**
 * A SAML IdP stand-in: a Response with one Assertion signed (RSA-SHA256, exclusive c14n) with the
 * test certificate, as a real IdP posts it (base64).
 */
export function samlResponse(o: AssertionOptions): string {
  const now = Date.now();
  const iso = (ms: number) => new Date(now + ms).toISOString();
  const assertionId = `_a${randomBytes(16).toString('hex')}`;
  const notOnOrAfter = iso(o.notOnOrAfterMs ?? 5 * 60_000);
  const issueInstant = iso(o.notBeforeMs ?? -60_000);
  const xml =
    `<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="_r${randomBytes(16).toString('hex')}" Version="2.0" IssueInstant="${issueInstant}" Destination="${o.acsUrl}" InResponseTo="${o.inResponseTo}">` +
    `<saml:Issuer>${o.issuer}</saml:Issuer>` +
    '<samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>' +
    `<saml:Assertion ID="${assertionId}" Version="2.0" IssueInstant="${issueInstant}">` +
    `<saml:Issuer>${o.issuer}</saml:Issuer>` +
    `<saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress">${o.email}</saml:NameID>` +
    `<saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer"><saml:SubjectConfirmationData InResponseTo="${o.inResponseTo}" NotOnOrAfter="${notOnOrAfter}" Recipient="${o.acsUrl}"/></saml:SubjectConfirmation></saml:Subject>` +
    `<saml:Conditions NotBefore="${iso(o.notBeforeMs ?? -60_000)}" NotOnOrAfter="${notOnOrAfter}"><saml:AudienceRestriction><saml:Audience>${o.audience}</saml:Audience></saml:AudienceRestriction></saml:Conditions>` +
    `<saml:AuthnStatement AuthnInstant="${issueInstant}" SessionIndex="_s${randomBytes(8).toString('hex')}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>` +
    `<saml:AttributeStatement><saml:Attribute Name="email"><saml:AttributeValue>${o.email}</saml:AttributeValue></saml:Attribute></saml:AttributeStatement>` +
    '</saml:Assertion></samlp:Response>';
  const sig = new SignedXml({
    privateKey: o.key ?? IDP_KEY,
    publicCert: o.cert ?? IDP_CERT,
    signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    canonicalizationAlgorithm: 'http://www.w3.org/2001/10/xml-exc-c14n#',
  });
  sig.addReference({
    xpath: "//*[local-name(.)='Assertion']",
    transforms: ['http://www.w3.org/2000/09/xmldsig#enveloped-signature', 'http://www.w3.org/2001/10/xml-exc-c14n#'],
    digestAlgorithm: 'http://www.w3.org/2001/04/xmlenc#sha256',
  });
  sig.computeSignature(xml, {
    location: { reference: "//*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' },
  });
  const signed = o.tamper ? o.tamper(sig.getSignedXml()) : sig.getSignedXml();
  return Buffer.from(signed, 'utf8').toString('base64');
}
