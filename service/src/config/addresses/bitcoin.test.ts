import { readFileSync } from 'node:fs'
import { describe, expect, test } from 'vitest'
import { addressOfScript, BITCOIN_NETWORKS, canonicalBitcoinAddress, parseHdWallet } from './bitcoin.ts'

const mainnet = BITCOIN_NETWORKS.bitcoin

type EsploraOutput = { scriptpubkey: string; scriptpubkey_type: string; scriptpubkey_address?: string; value: number }
const tx = JSON.parse(
  readFileSync(new URL('../../../test/fixtures/mempool-esplora/block-850000-every-script-type.json', import.meta.url), 'utf8'),
) as { vin: { prevout: EsploraOutput }[]; vout: EsploraOutput[] }

describe('canonicalBitcoinAddress()', () => {
  test('returns each encoding in its canonical form and refuses a wrong checksum, network or length', () => {
    const cases: [string, string | undefined][] = [
      ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa', '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa'],
      ['1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNb', undefined], // base58check checksum
      ['3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy', '3J98t1WpEZ73CNmQviecrnyiWrnqRhWNLy'],
      ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'],
      ['BC1QAR0SRRR7XFKVY5L643LYDNW9RE59GTZZWF5MDQ', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'], // upper-case bech32
      ['bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdp', undefined], // bech32 checksum
      [
        'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297',
        'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297',
      ],
      // a v1 program in bech32 (not bech32m) is invalid (BIP 350)
      [`${'bc1p5d7rjq7g6rdk2yhzks9smlaqtedr4dekq08ge8ztwac72sfr9rusxg3297'.slice(0, -6)}qqqqqq`, undefined],
      ['tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx', undefined], // testnet
      ['0xd8da6bf26964af9d7eed9e03e53415d37aa96045', undefined],
    ]
    expect(cases.map(([text]) => canonicalBitcoinAddress(text, mainnet))).toEqual(cases.map(([, canonical]) => canonical))
  })

  test("reads Litecoin regtest's addresses, its older P2SH version re-encoded with the current one", () => {
    const regtest = BITCOIN_NETWORKS['litecoin-regtest']
    expect(canonicalBitcoinAddress('rltc1qy73txygj2xke85ls42w3fqlv5dqkgd8zmw0mqw', regtest)).toBe(
      'rltc1qy73txygj2xke85ls42w3fqlv5dqkgd8zmw0mqw',
    )
    expect(canonicalBitcoinAddress('mrBRw45aYRrMDJVPDp1XzhQBo3bgQybDag', regtest)).toBe('mrBRw45aYRrMDJVPDp1XzhQBo3bgQybDag')
    // the same script hash as 2N… (0xc4) and Q… (0x3a)
    const modern = 'Qg6HR4zsg44XDpaNzGYWzQ69PYijP243RS'
    expect(canonicalBitcoinAddress(modern, regtest)).toBe(modern)
    expect(canonicalBitcoinAddress('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', regtest)).toBeUndefined()
  })
})

describe('addressOfScript()', () => {
  test("gives block 850000's outputs of every script type the address Esplora gives them", () => {
    const standard = [...tx.vin.map((i) => i.prevout), ...tx.vout].filter((o) => o.scriptpubkey_address !== undefined)
    expect(standard.length).toBeGreaterThan(10)
    expect(standard.map((o) => addressOfScript(o.scriptpubkey, mainnet).address)).toEqual(
      standard.map((o) => o.scriptpubkey_address),
    )
  })

  test('attributes P2PK to its key’s P2PKH address and bare multisig to the P2SH address of its script; OP_RETURN has none', () => {
    const byType = (type: string) => tx.vout.find((o) => o.scriptpubkey_type === type) as EsploraOutput
    expect(addressOfScript(byType('p2pk').scriptpubkey, mainnet)).toEqual({
      type: 'p2pk',
      address: expect.stringMatching(/^1[1-9A-HJ-NP-Za-km-z]{25,33}$/),
    })
    expect(addressOfScript(byType('multisig').scriptpubkey, mainnet)).toEqual({
      type: 'multisig',
      address: expect.stringMatching(/^3[1-9A-HJ-NP-Za-km-z]{25,33}$/),
    })
    expect(addressOfScript(byType('op_return').scriptpubkey, mainnet)).toEqual({ type: 'op_return', address: null })
    expect(addressOfScript('51', mainnet)).toEqual({ type: 'nonstandard', address: null }) // OP_TRUE
  })

  test('gives the genesis coinbase’s P2PK output the address bitcoin-etl exports for it', () => {
    const genesis =
      '4104678afdb0fe5548271967f1a67130b7105cd6a828e03909a67962e0ea1f61deb649f6bc3f4cef38c4f35504e51ec112de5c384df7ba0b8d578a4c702b6bf11d5fac'
    expect(addressOfScript(genesis, mainnet)).toEqual({ type: 'p2pk', address: '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa' })
  })
})

describe('parseHdWallet()', () => {
  test('derives the BIP 84 test vectors from a zpub (receive and change)', () => {
    const wallet = parseHdWallet(
      'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs',
      mainnet,
    )
    expect({
      script: wallet?.script,
      chains: wallet?.chains,
      addresses: [wallet?.deriveAddress(0, 0), wallet?.deriveAddress(0, 1), wallet?.deriveAddress(1, 0)],
    }).toEqual({
      script: 'p2wpkh',
      chains: [0, 1],
      addresses: [
        'bc1qcr8te4kr609gcawutmrza0j4xv80jy8z306fyu',
        'bc1qnjg0jd8228aq7egyzacy8cys3knf9xvrerkf9g',
        'bc1q8c6fshw2dlwun7ekn9qwf37cu2rn755upcp6el',
      ],
    })
  })

  test('derives the BIP 86 test vectors from a tr() descriptor with both chains', () => {
    const wallet = parseHdWallet(
      "tr([73c5da0a/86'/0'/0']xpub6BgBgsespWvERF3LHQu6CnqdvfEvtMcQjYrcRzx53QJjSxarj2afYWcLteoGVky7D3UKDP9QyrLprQ3VCECoY49yfdDEHGCtMMj92pReUsQ/<0;1>/*)",
      mainnet,
    )
    expect([wallet?.deriveAddress(0, 0), wallet?.deriveAddress(0, 1), wallet?.deriveAddress(1, 0)]).toEqual([
      'bc1p5cyxnuxmeuwuvkwfem96lqzszd02n6xdcjrs20cac6yqjjwudpxqkedrcr',
      'bc1p4qhjn9zdvkux4e44uhx8tc55attvtyu358kutcqkudyccelu0was9fqzwh',
      'bc1p3qkhfews2uk44qtvauqyr2ttdsw7svhkl9nkm9s9c3x4ax5h60wqwruhk7',
    ])
  })

  test('derives the BIP 49 test vector (P2SH-P2WPKH) from a testnet upub', () => {
    const wallet = parseHdWallet(
      'upub5EFU65HtV5TeiSHmZZm7FUffBGy8UKeqp7vw43jYbvZPpoVsgU93oac7Wk3u6moKegAEWtGNF8DehrnHtv21XXEMYRUocHqguyjknFHYfgY',
      BITCOIN_NETWORKS['bitcoin-testnet'],
    )
    expect(wallet?.deriveAddress(0, 0)).toBe('2Mww8dCYPUpKHofjgcXcBCEGmniw9CoaiD2')
  })

  test('derives BIP 32 test vector 1 (m/0H as an xpub, P2PKH children) and one chain of a descriptor', () => {
    // m/0H of BIP 32 test vector 1: a descriptor over its chain 1 and an xpub over both give the same m/0H/1/i
    const m0h = 'xpub68Gmy5EdvgibQVfPdqkBBCHxA5htiqg55crXYuXoQRKfDBFA1WEjWgP6LHhwBZeNK1VTsfTFUHCdrfp1bgwQ9xv5ski8PX9rL2dZXvgGDnw'
    const plain = parseHdWallet(m0h, mainnet)
    const descriptor = parseHdWallet(`pkh(${m0h}/1/*)#abcdefgh`, mainnet)
    expect(descriptor?.chains).toEqual([1])
    expect(descriptor?.deriveAddress(1, 2)).toBe(plain?.deriveAddress(1, 2))
    expect(plain?.script).toBe('p2pkh')
  })

  test('refuses what is not an extended public key: a bad checksum, a private key, an address', () => {
    const zpub = 'zpub6rFR7y4Q2AijBEqTUquhVz398htDFrtymD9xYYfG1m4wAcvPhXNfE3EfH1r1ADqtfSdVCToUG868RvUUkgDKf31mGDtKsAYz2oz2AGutZYs'
    expect(parseHdWallet(`${zpub.slice(0, -1)}t`, mainnet)).toBeUndefined()
    expect(
      parseHdWallet(
        'xprv9s21ZrQH143K3QTDL4LXw2F7HEK3wJUD2nW2nRk4stbPy6cq3jPPqjiChkVvvNKmPGJxWUtg6LnF5kejMRNNU3TGtRBeJgk33yuGBxrMPHi',
        mainnet,
      ),
    ).toBeUndefined()
    expect(parseHdWallet('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq', mainnet)).toBeUndefined()
  })
})
