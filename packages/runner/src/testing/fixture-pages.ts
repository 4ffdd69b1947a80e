/** A shop-like page with a list, a form and a result line; every script test drives it. */
export const SHOP_PAGE = `<!doctype html>
<html><head><title>Fixture shop</title></head><body>
<h1 id="title">  Products  </h1>
<ul id="products">
  <li class="product" data-sku="a1"><span class="name"> Apple </span><span class="price">1.00</span><a href="/apple">more</a></li>
  <li class="product" data-sku="b2"><span class="name">Banana</span><span class="price">0.50</span></li>
  <li class="product" data-sku="c3"><span class="name">Cherry</span><a href="/cherry">more</a></li>
</ul>
<form onsubmit="return false">
  <input id="q" name="q">
  <select id="size"><option value="s">Small</option><option value="l">Large</option></select>
  <label><input type="checkbox" id="agree"> agree</label>
  <button id="go" type="button" onclick="document.getElementById('out').textContent =
    'Searched: ' + document.getElementById('q').value + ' / ' + document.getElementById('size').value + ' / ' + document.getElementById('agree').checked">Go</button>
</form>
<p id="out"></p>
<div style="height: 3000px"></div>
<p id="footer">bottom</p>
</body></html>`;
